package workflow

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/repo"
)

func TestWorkflowHeadMatchesGit(t *testing.T) {
	main := gittest.NewRepo(t)
	gittest.Git(t, main, "worktree", "add", "-q", "-b", "burl", ".burl")
	wt := filepath.Join(main, ".burl")
	gittest.Git(t, wt, "commit", "-q", "--allow-empty", "-m", "workflow")
	w := New(&repo.Repo{Root: main, CommonDir: filepath.Join(main, ".git"), Branch: "burl", Worktree: wt})
	want := gittest.Git(t, wt, "rev-parse", "HEAD")
	if got, ok := w.looseHead(); !ok || got != want {
		t.Fatalf("loose ref: got %q %v, want %q", got, ok, want)
	}
	// Packed refs and a detached worktree are left to git.
	gittest.Git(t, main, "pack-refs", "--all")
	if _, ok := w.looseHead(); ok {
		t.Fatal("a packed ref was read as loose")
	}
	if got, err := w.workflowHead(); err != nil || got != want {
		t.Fatalf("packed: got %q %v, want %q", got, err, want)
	}
	gittest.Git(t, wt, "commit", "-q", "--allow-empty", "-m", "again")
	gittest.Git(t, wt, "switch", "-q", "--detach")
	if _, ok := w.looseHead(); ok {
		t.Fatal("a detached workflow worktree was trusted")
	}
}

func TestCurrentBranchMatchesGit(t *testing.T) {
	main := gittest.NewRepo(t)
	linked := filepath.Join(filepath.Dir(main), "linked")
	gittest.Git(t, main, "worktree", "add", "-q", "-b", "task-001-x", linked)
	check := func(dir, want string) {
		t.Helper()
		if got, ok := headBranch(dir); !ok || got != want {
			t.Fatalf("%s: headBranch = %q %v, want %q", dir, got, ok, want)
		}
		// Not gittest.Git: symbolic-ref fails on a detached HEAD, and its
		// empty answer is the one wanted then.
		out, _ := exec.Command("git", "-C", dir, "symbolic-ref", "--short", "-q", "HEAD").Output()
		if got := strings.TrimSpace(string(out)); got != want {
			t.Fatalf("%s: git says %q, want %q", dir, got, want)
		}
	}
	check(main, "main")
	check(linked, "task-001-x")
	gittest.Git(t, linked, "switch", "-q", "--detach")
	check(linked, "")
	// As in a hook of the linked worktree: GIT_DIR names its git dir.
	gittest.Git(t, linked, "switch", "-q", "task-001-x")
	t.Setenv("GIT_DIR", filepath.Join(main, ".git", "worktrees", "linked"))
	if got, ok := headBranch(main); !ok || got != "task-001-x" {
		t.Fatalf("with GIT_DIR: %q %v", got, ok)
	}
}
