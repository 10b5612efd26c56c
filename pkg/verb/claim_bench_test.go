package verb

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkClaim is `git burl claim TASK-001` in process on a small
// workflow, undone between iterations (untimed): the verb's own cost
// besides the git processes it runs (BURL_TRACE=1 lists those).
func BenchmarkClaim(b *testing.B) {
	dir := benchRepo(b, 10)
	wf := filepath.Join(dir, ".burl")
	run := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	snap, err := exec.Command("git", "-C", wf, "rev-parse", "HEAD").Output()
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		benchVerb(b, dir, "claim", "TASK-001")
		b.StopTimer()
		run(dir, "worktree", "remove", "--force", filepath.Join(dir, ".worktrees", "task-001-feature"))
		run(dir, "branch", "-q", "-D", "task-001-feature")
		run(wf, "reset", "-q", "--hard", string(snap[:40]))
		b.StartTimer()
	}
}
