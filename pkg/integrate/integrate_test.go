package integrate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/repo"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commit(t *testing.T, dir, name, content string) string {
	t.Helper()
	write(t, dir, name, content)
	gittest.Git(t, dir, "add", name)
	gittest.Git(t, dir, "commit", "-q", "-m", "edit "+name)
	return gittest.Git(t, dir, "rev-parse", "HEAD")
}

// fixture is a bare origin and a clone with main checked out at c1 (pushed).
type fixture struct {
	origin, repo string
	c1           string
	m            Main
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	gittest.Isolate(t)
	root := t.TempDir()
	f := &fixture{origin: filepath.Join(root, "origin.git"), repo: filepath.Join(root, "repo")}
	gittest.Git(t, root, "init", "-q", "--bare", f.origin)
	gittest.Git(t, root, "clone", "-q", f.origin, f.repo)
	f.c1 = commit(t, f.repo, "f.txt", "one\n")
	gittest.Git(t, f.repo, "push", "-q", "origin", "main")
	f.m = mainIn(t, f.repo)
	return f
}

// main is the same Main, and so the same fast-forward lock, on every call.
func (f *fixture) main() Main { return f.m }

// mainIn is Main as burl builds it for the repository at dir, its
// fast-forward lock in a directory of its own.
func mainIn(t *testing.T, dir string) Main {
	t.Helper()
	r, err := repo.Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	locks := lock.Dir{Path: t.TempDir()}
	return Main{Git: gitx.In(dir), Branch: "main", Remote: "origin", Repo: r, Lock: func() (*lock.Lock, error) {
		return locks.AcquireWait(lock.FastForward, lock.Info{Action: "test"}, 10*time.Second)
	}}
}

// pushFromElsewhere moves origin's main on by one commit made in another clone.
func (f *fixture) pushFromElsewhere(t *testing.T, name, content string) string {
	t.Helper()
	other := filepath.Join(t.TempDir(), "other")
	gittest.Git(t, filepath.Dir(other), "clone", "-q", f.origin, other)
	sha := commit(t, other, name, content)
	gittest.Git(t, other, "push", "-q", "origin", "main")
	return sha
}

func (f *fixture) rev(t *testing.T, ref string) string {
	return gittest.Git(t, f.repo, "rev-parse", ref)
}

func TestBaseWithoutRemoteIsLocalMain(t *testing.T) {
	gittest.Isolate(t)
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q")
	c1 := commit(t, dir, "f.txt", "one\n")
	m := mainIn(t, dir)
	if m.HasRemote() {
		t.Fatal("HasRemote with no remote configured")
	}
	if base, err := m.Base(); err != nil || base != c1 {
		t.Fatalf("Base() = %q, %v; want %s", base, err, c1)
	}
	m.Branch = "trunk"
	_, err := m.Base()
	if err == nil || errs.KindOf(err) != errs.User || !strings.Contains(err.Error(), `"trunk"`) {
		t.Fatalf("missing main branch: err = %v (kind %v), want a user error naming trunk", err, errs.KindOf(err))
	}
}

func TestBaseBehindFastForwardsCheckedOutMain(t *testing.T) {
	f := newFixture(t)
	c2 := f.pushFromElsewhere(t, "g.txt", "two\n")

	base, err := f.main().Base()
	if err != nil || base != c2 {
		t.Fatalf("Base() = %q, %v; want origin's %s", base, err, c2)
	}
	if got := f.rev(t, "main"); got != c2 {
		t.Errorf("local main = %s, want fast-forwarded to %s", got, c2)
	}
	if _, err := os.Stat(filepath.Join(f.repo, "g.txt")); err != nil {
		t.Errorf("the checked-out worktree was not updated: %v", err)
	}
	if st := gittest.Git(t, f.repo, "status", "--porcelain"); st != "" {
		t.Errorf("worktree left dirty:\n%s", st)
	}
}

func TestBaseBehindUpdatesMainCheckedOutNowhere(t *testing.T) {
	f := newFixture(t)
	gittest.Git(t, f.repo, "switch", "-q", "-c", "experiment")
	mine := commit(t, f.repo, "mine.txt", "mine\n")
	c2 := f.pushFromElsewhere(t, "g.txt", "two\n")

	if base, err := f.main().Base(); err != nil || base != c2 {
		t.Fatalf("Base() = %q, %v; want %s", base, err, c2)
	}
	if got := f.rev(t, "main"); got != c2 {
		t.Errorf("main = %s, want %s", got, c2)
	}
	if head, br := f.rev(t, "HEAD"), gittest.Git(t, f.repo, "symbolic-ref", "--short", "HEAD"); head != mine || br != "experiment" {
		t.Errorf("the worktree was switched or moved: %s at %s", br, head)
	}
}

func TestBaseAheadIsLocalMain(t *testing.T) {
	f := newFixture(t)
	c2 := commit(t, f.repo, "f.txt", "two\n")

	if base, err := f.main().Base(); err != nil || base != c2 {
		t.Fatalf("Base() = %q, %v; want local %s", base, err, c2)
	}
	if got := gittest.Git(t, f.repo, "ls-remote", "origin", "refs/heads/main"); !strings.HasPrefix(got, f.c1) {
		t.Errorf("origin moved: %s", got)
	}
}

func TestBaseDivergedIsAGitError(t *testing.T) {
	f := newFixture(t)
	local := commit(t, f.repo, "f.txt", "local\n")
	remote := f.pushFromElsewhere(t, "f.txt", "remote\n")

	_, err := f.main().Base()
	if err == nil {
		t.Fatal("Base() succeeded on diverged main")
	}
	if k := errs.KindOf(err); k != errs.Git {
		t.Errorf("kind = %v, want git (exit 3)", k)
	}
	for _, sha := range []string{local[:10], remote[:10]} {
		if !strings.Contains(err.Error(), sha) {
			t.Errorf("error does not name %s: %v", sha, err)
		}
	}
	if got := f.rev(t, "main"); got != local {
		t.Errorf("local main moved to %s", got)
	}
}

func TestAdvanceCheckedOutCleanFastForwardsAndRewinds(t *testing.T) {
	f := newFixture(t)
	gittest.Git(t, f.repo, "switch", "-q", "-c", "work")
	c2 := commit(t, f.repo, "g.txt", "two\n")
	gittest.Git(t, f.repo, "switch", "-q", "main")

	m := f.main()
	if err := m.Advance(f.c1, c2); err != nil {
		t.Fatalf("Advance: %v", err)
	}
	if got := f.rev(t, "main"); got != c2 {
		t.Fatalf("main = %s, want %s", got, c2)
	}
	if _, err := os.Stat(filepath.Join(f.repo, "g.txt")); err != nil {
		t.Errorf("worktree not updated: %v", err)
	}
	if merges := gittest.Git(t, f.repo, "rev-list", "--merges", "main"); merges != "" {
		t.Errorf("merge commits on main: %s", merges)
	}
	if err := m.Rewind(c2, f.c1); err != nil {
		t.Fatalf("Rewind: %v", err)
	}
	if got := f.rev(t, "main"); got != f.c1 {
		t.Errorf("after Rewind main = %s, want %s", got, f.c1)
	}
	if st := gittest.Git(t, f.repo, "status", "--porcelain"); st != "" {
		t.Errorf("Rewind left the worktree dirty:\n%s", st)
	}
}

func TestAdvanceCheckedOutDirtyRefusesAndChangesNothing(t *testing.T) {
	f := newFixture(t)
	gittest.Git(t, f.repo, "switch", "-q", "-c", "work")
	c2 := commit(t, f.repo, "g.txt", "two\n")
	gittest.Git(t, f.repo, "switch", "-q", "main")
	write(t, f.repo, "f.txt", "my unsaved edit\n")

	err := f.main().Advance(f.c1, c2)
	if err == nil {
		t.Fatal("Advance succeeded with a dirty main worktree")
	}
	if k := errs.KindOf(err); k != errs.Git {
		t.Errorf("kind = %v, want git (exit 3)", k)
	}
	if !strings.Contains(err.Error(), "f.txt") || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Errorf("error does not name the dirty file: %v", err)
	}
	if got := f.rev(t, "main"); got != f.c1 {
		t.Errorf("main moved to %s", got)
	}
	if data, _ := os.ReadFile(filepath.Join(f.repo, "f.txt")); string(data) != "my unsaved edit\n" {
		t.Errorf("the user's edit was lost: %q", data)
	}
}

func TestAdvanceNotCheckedOutIsCompareAndSwap(t *testing.T) {
	f := newFixture(t)
	gittest.Git(t, f.repo, "switch", "-q", "-c", "work")
	c2 := commit(t, f.repo, "g.txt", "two\n")
	c3 := commit(t, f.repo, "h.txt", "three\n")

	m := f.main()
	if err := m.Advance(f.c1, c2); err != nil {
		t.Fatalf("Advance: %v", err)
	}
	if got := f.rev(t, "main"); got != c2 {
		t.Fatalf("main = %s, want %s", got, c2)
	}
	// Someone else moved main since we read c1: the swap must fail.
	err := m.Advance(f.c1, c3)
	if err == nil || errs.KindOf(err) != errs.Git {
		t.Fatalf("Advance from a stale old value: err = %v, want a git error", err)
	}
	if got := f.rev(t, "main"); got != c2 {
		t.Errorf("main = %s after a failed swap, want %s", got, c2)
	}
	if head := f.rev(t, "HEAD"); head != c3 {
		t.Errorf("the checked-out branch moved: HEAD %s", head)
	}
}

// taskWorktree makes a worktree on a new branch task from start, with one commit.
func taskWorktree(t *testing.T, f *fixture, start, name, content string) (string, string) {
	t.Helper()
	wt := filepath.Join(t.TempDir(), "task")
	gittest.Git(t, f.repo, "worktree", "add", "-q", "-b", "task", wt, start)
	return wt, commit(t, wt, name, content)
}

func TestRebaseConflictAbortsAndNamesFiles(t *testing.T) {
	f := newFixture(t)
	wt, submitted := taskWorktree(t, f, f.c1, "f.txt", "task\n")
	c2 := commit(t, f.repo, "f.txt", "main\n")

	err := Rebase(gitx.In(wt), c2)
	var c *Conflict
	if !errors.As(err, &c) {
		t.Fatalf("Rebase = %v, want *Conflict", err)
	}
	if len(c.Files) != 1 || c.Files[0] != "f.txt" {
		t.Errorf("conflict files = %v, want [f.txt]", c.Files)
	}
	if errs.KindOf(err) != errs.Git {
		t.Errorf("kind = %v, want git (exit 3)", errs.KindOf(err))
	}
	if head := gittest.Git(t, wt, "rev-parse", "HEAD"); head != submitted {
		t.Errorf("task branch at %s, want %s", head, submitted)
	}
	if b := gittest.Git(t, wt, "symbolic-ref", "--short", "HEAD"); b != "task" {
		t.Errorf("worktree on %q, want the task branch", b)
	}
	gitDir := gittest.Git(t, wt, "rev-parse", "--git-dir")
	for _, d := range []string{"rebase-merge", "rebase-apply"} {
		if _, err := os.Stat(filepath.Join(gitDir, d)); err == nil {
			t.Errorf("a rebase is still in progress (%s)", d)
		}
	}
	if st := gittest.Git(t, wt, "status", "--porcelain"); st != "" {
		t.Errorf("worktree left dirty:\n%s", st)
	}
}

func TestRebaseCleanMovesBranchOntoBase(t *testing.T) {
	f := newFixture(t)
	wt, _ := taskWorktree(t, f, f.c1, "task.txt", "task\n")
	c2 := commit(t, f.repo, "f.txt", "main\n")

	if err := Rebase(gitx.In(wt), c2); err != nil {
		t.Fatalf("Rebase: %v", err)
	}
	if parent := gittest.Git(t, wt, "rev-parse", "HEAD^"); parent != c2 {
		t.Errorf("rebased branch's parent = %s, want %s", parent, c2)
	}
	if n := Drift(gitx.In(f.repo), f.c1, c2); n != 1 {
		t.Errorf("Drift = %d, want 1", n)
	}
}

// Concurrent claims all find main behind origin and fast-forward it at
// once; every one of them must get origin's main as its base, whether main
// is checked out (merge --ff-only) or not (compare-and-swap update-ref).
func TestBaseBehindConcurrently(t *testing.T) {
	for _, checkedOut := range []bool{true, false} {
		f := newFixture(t)
		if !checkedOut {
			gittest.Git(t, f.repo, "switch", "-q", "-c", "experiment")
		}
		c2 := f.pushFromElsewhere(t, "g.txt", "two\n")
		const n = 8
		var wg sync.WaitGroup
		bases, failures := make([]string, n), make([]error, n)
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bases[i], failures[i] = f.main().Base()
			}()
		}
		wg.Wait()
		for i := 0; i < n; i++ {
			if failures[i] != nil || bases[i] != c2 {
				t.Errorf("checked out %v: Base() #%d = %q, %v; want %s", checkedOut, i, bases[i], failures[i], c2)
			}
		}
		if got := f.rev(t, "main"); got != c2 {
			t.Errorf("checked out %v: main = %s, want %s", checkedOut, got, c2)
		}
	}
}
