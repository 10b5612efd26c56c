package verb_test

import (
	"path/filepath"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
)

// BenchmarkClaim is `git burl claim TASK-001` in process on a small
// workflow, undone between iterations (untimed): the verb's own cost
// besides the git processes it runs (BURL_TRACE=1 lists those).
func BenchmarkClaim(b *testing.B) {
	dir := benchRepo(b, 10)
	wf := filepath.Join(dir, ".burl")
	snap := gittest.Git(b, wf, "rev-parse", "HEAD")
	for range b.N {
		benchVerb(b, dir, "claim", "TASK-001")
		b.StopTimer()
		gittest.Git(b, dir, "worktree", "remove", "--force", filepath.Join(dir, ".worktrees", "task-001-feature"))
		gittest.Git(b, dir, "branch", "-q", "-D", "task-001-feature")
		gittest.Git(b, wf, "reset", "-q", "--hard", snap)
		b.StartTimer()
	}
}
