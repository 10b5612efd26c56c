package gitx

import (
	"path/filepath"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
)

// A linked worktree's reads go through the main worktree's cat-file, its
// HEAD by git's per-worktree name, and answer as its own cat-file would.
func TestWorktreesShareOneCatFile(t *testing.T) {
	dir := gittest.NewRepo(t)
	wt := filepath.Join(dir, "wt")
	gittest.Git(t, dir, "worktree", "add", "-q", "-b", "side", wt)
	gittest.Git(t, wt, "commit", "-q", "--allow-empty", "-m", "side")
	for _, name := range []string{"HEAD", "HEAD^{commit}", "HEAD~1", "HEAD:", "refs/heads/side", "side"} {
		got, err := In(wt).Resolve(name)
		want, _ := realRevParse(wt, "-q", "--verify", name)
		if err != nil || got != want {
			t.Errorf("%s in the worktree: %q %v, want %q", name, got, err, want)
		}
	}
	if s, _, ok := In(wt).catRoute([]string{"HEAD"}); !ok || s.Dir != dir {
		t.Errorf("the worktree's reads go to %q (%v), not the main worktree's cat-file", s.Dir, ok)
	}
	for _, name := range []string{":README", "HEAD@{1}", "ORIG_HEAD", "HEAD:./x", "refs/bisect/bad"} {
		if _, _, ok := In(wt).catRoute([]string{name}); ok {
			t.Errorf("%s, the worktree's own, is asked of the shared cat-file", name)
		}
	}
	if _, _, ok := In(filepath.Join(dir, ".git")).catRoute([]string{"HEAD"}); ok {
		t.Error("a git dir is routed as a worktree")
	}
}
