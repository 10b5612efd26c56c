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
