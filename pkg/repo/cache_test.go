package repo

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/gitx"
)

// settle dates every config file of the repository in dir back by age, as
// if written that long ago (a stamp trusts no file changed within racy).
func settle(t *testing.T, dir string, age time.Duration) {
	t.Helper()
	r, _, err := resolve(dir, found{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range configFiles(r) {
		if _, err := os.Stat(f); err == nil {
			if err := os.Chtimes(f, time.Now().Add(-age), time.Now().Add(-age)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// withoutGit makes git unrunnable until the returned func: Resolve must
// answer from what it read before.
func withoutGit(t *testing.T) (restore func()) {
	was := gitx.Program()
	gitx.SetProgram(filepath.Join(t.TempDir(), "no-git"))
	return func() { gitx.SetProgram(was) }
}

func TestResolveAsksGitOncePerDirectory(t *testing.T) {
	root := gittest.NewRepo(t)
	gittest.Git(t, root, "config", "burl.branch", "flow")
	settle(t, root, time.Hour)
	// The first Resolve learns which files to stamp, the second stamps
	// them before git reads them.
	for i := 0; i < 2; i++ {
		if r, err := Resolve(root); err != nil || r.Branch != "flow" {
			t.Fatalf("Resolve: %v %v", r, err)
		}
	}
	first, _ := Resolve(root)
	restore := withoutGit(t)
	again, err := Resolve(root)
	restore()
	if err != nil || again.Branch != "flow" || again.Root != first.Root {
		t.Fatalf("a second Resolve asked git again: %v %v", again, err)
	}

	// A changed setting is read again, however soon.
	gittest.Git(t, root, "config", "burl.branch", "other")
	if r, err := Resolve(root); err != nil || r.Branch != "other" {
		t.Fatalf("after git config burl.branch other: %v %v", r, err)
	}
	settle(t, root, 30*time.Minute)
	for i := 0; i < 2; i++ {
		if r, err := Resolve(root); err != nil || r.Branch != "other" {
			t.Fatalf("after git config burl.branch other: %v %v", r, err)
		}
	}
	restore = withoutGit(t)
	again, err = Resolve(root)
	restore()
	if err != nil || again.Branch != "other" {
		t.Fatalf("a changed setting is not kept once read: %v %v", again, err)
	}
}

func TestResolveReadsThroughAnIncludeEveryTime(t *testing.T) {
	root := gittest.NewRepo(t)
	inc := filepath.Join(t.TempDir(), "inc")
	if err := os.WriteFile(inc, []byte("[burl]\n\tbranch = inc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, root, "config", "include.path", inc)
	settle(t, root, time.Hour)
	if err := os.Chtimes(inc, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if r, err := Resolve(root); err != nil || r.Branch != "inc" {
			t.Fatalf("Resolve: %v %v", r, err)
		}
	}
	defer withoutGit(t)()
	if _, err := Resolve(root); err == nil {
		t.Fatal("settings read through an include were answered from a cache")
	}
}

// forget drops what this process resolved, as a new process starts.
func forget() {
	cacheMu.Lock()
	cache = map[string]cacheEntry{}
	cacheMu.Unlock()
}

// A new process takes the main worktree's settings from what an earlier
// one kept, while no config file changed; a changed one is read again.
func TestResolveKeepsSettingsAcrossProcesses(t *testing.T) {
	root := gittest.NewRepo(t)
	gittest.Git(t, root, "config", "burl.branch", "flow")
	settle(t, root, time.Hour)
	forget()
	if r, err := Resolve(root); err != nil || r.Branch != "flow" {
		t.Fatalf("Resolve: %v %v", r, err)
	}
	forget()
	restore := withoutGit(t)
	r, err := Resolve(root)
	restore()
	if err != nil || r.Branch != "flow" {
		t.Fatalf("a new process asked git again: %v %v", r, err)
	}

	gittest.Git(t, root, "config", "burl.branch", "other")
	settle(t, root, 30*time.Minute)
	forget()
	if r, err := Resolve(root); err != nil || r.Branch != "other" {
		t.Fatalf("after git config burl.branch other: %v %v", r, err)
	}
	t.Setenv("GIT_CONFIG_PARAMETERS", "'burl.branch'='env'")
	forget()
	if r, err := Resolve(root); err != nil || r.Branch != "env" {
		t.Fatalf("with burl.branch from the environment: %v %v", r, err)
	}
}
