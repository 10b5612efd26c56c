package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/gitx"
)

// newRepo is gittest.NewRepo with its commit, which the tests compare against.
func newRepo(t *testing.T) (dir, head string) {
	t.Helper()
	dir = gittest.NewRepo(t)
	return dir, gittest.Git(t, dir, "rev-parse", "HEAD")
}

func TestTipsAnswersExactBranchNamesOnly(t *testing.T) {
	dir, head := newRepo(t)
	gittest.Git(t, dir, "branch", "main-old")
	gittest.Git(t, dir, "branch", "task/x")
	tips, err := Tips(gitx.In(dir), "main", "task", "absent")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"main": head, "task": "", "absent": ""}
	if len(tips) != len(want) {
		t.Fatalf("Tips = %v, want %v", tips, want)
	}
	for n, sha := range want {
		if tips[n] != sha {
			t.Errorf("Tips[%q] = %q, want %q (refs below or beside a name must not count)", n, tips[n], sha)
		}
	}
}

func TestEnsureCreatesBranchAndWorktree(t *testing.T) {
	dir, head := newRepo(t)
	path := filepath.Join(dir, ".worktrees", "task-001-x")
	no := false
	cb, cw, err := EnsureKnown(gitx.In(dir), path, "task-001-x", head, no)
	if err != nil || !cb || !cw {
		t.Fatalf("EnsureKnown = %v, %v, %v; want a new branch and worktree", cb, cw, err)
	}
	if got := gittest.Git(t, path, "symbolic-ref", "--short", "HEAD"); got != "task-001-x" {
		t.Errorf("worktree is on %q", got)
	}
	if got := gittest.Git(t, dir, "rev-parse", "task-001-x"); got != head {
		t.Errorf("branch at %s, want %s", got, head)
	}
	// Asked again, everything is there already: nothing is created.
	yes := true
	cb, cw, err = EnsureKnown(gitx.In(dir), path, "task-001-x", head, yes)
	if err != nil || cb || cw {
		t.Fatalf("second EnsureKnown = %v, %v, %v; want nothing created", cb, cw, err)
	}
}

// git creates the branch, then fails to add the worktree: the branch it
// left must not survive the failure.
func TestEnsureLeavesNoBranchWhenTheWorktreeCannotBeAdded(t *testing.T) {
	dir, head := newRepo(t)
	if err := os.WriteFile(filepath.Join(dir, ".git", "worktrees"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".worktrees", "task-001-x")
	_, _, err := EnsureKnown(gitx.In(dir), path, "task-001-x", head, false)
	if err == nil {
		t.Fatal("EnsureKnown succeeded with .git/worktrees a file")
	}
	if !strings.Contains(err.Error(), "git worktree add") {
		t.Errorf("error does not say what failed: %v", err)
	}
	if have, _ := BranchExists(gitx.In(dir), "task-001-x"); have {
		t.Error("the branch git created before failing is still there")
	}
	if _, serr := os.Stat(path); serr == nil {
		t.Error("the worktree directory is still there")
	}
}
