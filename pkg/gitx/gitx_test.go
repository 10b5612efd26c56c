package gitx

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestLockContention(t *testing.T) {
	cases := []struct {
		cmd    string
		stderr string
		retry  bool
	}{
		{"commit", "fatal: Unable to create '/r/.git/index.lock': File exists.\n\nAnother git process seems to be running", true},
		{"update-ref", "error: cannot lock ref 'refs/heads/main': Unable to create '/r/.git/refs/heads/main.lock': File exists.", true},
		{"config", "error: could not lock config file .git/config: File exists", true},
		{"worktree", "fatal: failed to read .git/worktrees/task-004-x/commondir: Success", true},
		{"fetch", "fatal: bad object worktrees/task-009-t9/HEAD", true},
		{"fetch", "fatal: bad object refs/heads/main", false},
		{"fetch", "error: cannot lock ref 'refs/remotes/origin/main': is at 1111 but expected 2222", true},
		{"update-ref", "fatal: update_ref failed for ref 'refs/heads/main': cannot lock ref 'refs/heads/main': is at 1111 but expected 2222", false},
		{"update-ref", "fatal: update_ref failed for ref 'refs/heads/main': cannot lock ref 'refs/heads/main': unable to resolve reference 'refs/heads/main'", false},
		{"branch", "error: cannot lock ref 'refs/heads/a/b': 'refs/heads/a' exists; cannot create 'refs/heads/a/b'", false},
		{"fetch", "fatal: cannot lock ref 'refs/heads/x': reference already exists", false},
		{"rebase", "CONFLICT (content): Merge conflict in f.txt", false},
		{"status", "fatal: not a git repository", false},
	}
	for _, c := range cases {
		if got := lockContention([]string{"-c", "x.y=z", c.cmd}, &Error{Stderr: c.stderr}); got != c.retry {
			t.Errorf("git %s: lockContention(%q) = %v, want %v", c.cmd, c.stderr, got, c.retry)
		}
	}
}

// A compare-and-swap that lost must fail at once, not after the lock wait.
func TestLostCompareAndSwapFailsFast(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	dir := t.TempDir()
	g := In(dir)
	g.Env = []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x"}
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "one"}, {"commit", "-q", "--allow-empty", "-m", "two"}} {
		if _, err := g.Run(args...); err != nil {
			t.Fatal(err)
		}
	}
	ref, err := g.Run("symbolic-ref", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = g.Run("update-ref", ref, "HEAD^", "HEAD^")
	if err == nil {
		t.Fatal("update-ref with a wrong old value succeeded")
	}
	if d := time.Since(start); d > lockWait/2 {
		t.Errorf("a lost compare-and-swap took %s to fail: it was retried as lock contention", d)
	}
}
