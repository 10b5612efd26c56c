package gitx

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/burl-dev/burl/internal/gittest"
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
	dir := gittest.NewRepo(t)
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	g := In(dir)
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

func TestOwnRepoIgnoresAHooksRepository(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if _, err := In(d).Run("init", "-q"); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GIT_DIR", filepath.Join(a, ".git"))
	got, err := Git{Dir: b, OwnRepo: true}.Run("rev-parse", "--absolute-git-dir")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(filepath.Join(b, ".git")); got != want {
		t.Fatalf("OwnRepo in %s read %s, want %s", b, got, want)
	}
	if got, _ := In(b).Run("rev-parse", "--absolute-git-dir"); got == filepath.Join(b, ".git") {
		t.Fatal("without OwnRepo git should follow GIT_DIR, as a hook's git does")
	}
}
