package integrate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/workspace"
)

// checkedOut reads what git worktree list says of main from git's files:
// checked out in the main worktree, in a linked one, or nowhere.
func TestCheckedOutAgreesWithWorktreeList(t *testing.T) {
	f := newFixture(t)
	m := f.main()
	same := func(when string) {
		t.Helper()
		got, err := m.checkedOut()
		if err != nil {
			t.Fatal(err)
		}
		want, err := workspace.CheckedOutAt(m.Git, m.Branch)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case (got == nil) != (want == nil):
			t.Fatalf("%s: checkedOut %+v, git worktree list %+v", when, got, want)
		case got != nil && (got.Path != want.Path || got.Branch != want.Branch):
			t.Fatalf("%s: checkedOut %+v, git worktree list %+v", when, got, want)
		}
	}
	same("main in the main worktree")
	if got, _ := m.checkedOut(); got == nil {
		t.Fatal("main is checked out in the main worktree, and checkedOut found it nowhere")
	}
	gittest.Git(t, f.repo, "checkout", "-q", "-b", "side")
	same("main checked out nowhere")
	other := filepath.Join(filepath.Dir(f.repo), "wt-main")
	gittest.Git(t, f.repo, "worktree", "add", "-q", other, "main")
	same("main in a linked worktree")
	if got, _ := m.checkedOut(); got == nil || got.Path == filepath.Clean(f.repo) {
		t.Fatalf("main is checked out in %s, checkedOut says %+v", other, got)
	}
	gittest.Git(t, other, "checkout", "-q", "--detach")
	same("the linked worktree detached")
	// A folder under worktrees/ that is no worktree is passed over.
	if err := os.MkdirAll(filepath.Join(f.m.Repo.CommonDir, "worktrees", "junk"), 0o755); err != nil {
		t.Fatal(err)
	}
	same("a stray folder under worktrees/")
}
