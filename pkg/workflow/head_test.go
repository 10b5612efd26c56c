package workflow

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/repo"
)

func TestWorkflowHeadMatchesGit(t *testing.T) {
	root := t.TempDir()
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(root, "gitconfig"),
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	main := filepath.Join(root, "repo")
	git(root, "init", "-q", "-b", "main", main)
	git(main, "commit", "-q", "--allow-empty", "-m", "init")
	git(main, "worktree", "add", "-q", "-b", "burl", ".burl")
	wt := filepath.Join(main, ".burl")
	git(wt, "commit", "-q", "--allow-empty", "-m", "workflow")
	w := New(&repo.Repo{Root: main, CommonDir: filepath.Join(main, ".git"), Branch: "burl", Worktree: wt})
	want := git(wt, "rev-parse", "HEAD")
	if got, ok := w.looseHead(); !ok || got != want {
		t.Fatalf("loose ref: got %q %v, want %q", got, ok, want)
	}
	// Packed refs and a detached worktree are left to git.
	git(main, "pack-refs", "--all")
	if _, ok := w.looseHead(); ok {
		t.Fatal("a packed ref was read as loose")
	}
	if got, err := w.workflowHead(); err != nil || got != want {
		t.Fatalf("packed: got %q %v, want %q", got, err, want)
	}
	git(wt, "commit", "-q", "--allow-empty", "-m", "again")
	git(wt, "switch", "-q", "--detach")
	if _, ok := w.looseHead(); ok {
		t.Fatal("a detached workflow worktree was trusted")
	}
}

func TestCurrentBranchMatchesGit(t *testing.T) {
	root := t.TempDir()
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(root, "gitconfig"),
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t.invalid")
		out, _ := cmd.CombinedOutput()
		return strings.TrimSpace(string(out))
	}
	main := filepath.Join(root, "repo")
	git(root, "init", "-q", "-b", "main", main)
	git(main, "commit", "-q", "--allow-empty", "-m", "init")
	linked := filepath.Join(root, "linked")
	git(main, "worktree", "add", "-q", "-b", "task-001-x", linked)
	check := func(dir, want string) {
		t.Helper()
		if got, ok := headBranch(dir); !ok || got != want {
			t.Fatalf("%s: headBranch = %q %v, want %q", dir, got, ok, want)
		}
		if got := git(dir, "symbolic-ref", "--short", "-q", "HEAD"); got != want {
			t.Fatalf("%s: git says %q, want %q", dir, got, want)
		}
	}
	check(main, "main")
	check(linked, "task-001-x")
	git(linked, "switch", "-q", "--detach")
	check(linked, "")
	// As in a hook of the linked worktree: GIT_DIR names its git dir.
	git(linked, "switch", "-q", "task-001-x")
	t.Setenv("GIT_DIR", filepath.Join(main, ".git", "worktrees", "linked"))
	if got, ok := headBranch(main); !ok || got != "task-001-x" {
		t.Fatalf("with GIT_DIR: %q %v", got, ok)
	}
}
