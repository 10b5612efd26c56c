package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The walk through cat-file lists what git log --name-only -m
// --first-parent lists, for a line of commits, a merge whose first parent
// is the run's line, and one that writes a reserved path.
func TestFirstParentPathsAsGitLog(t *testing.T) {
	f := newFixture(t)
	wt := f.wt
	commit := func(path, msg string) string {
		p := filepath.Join(wt, filepath.FromSlash(path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(msg+"\n"), 0o644)
		git(t, wt, nil, "add", "-A")
		git(t, wt, nil, "commit", "-qm", msg)
		return git(t, wt, nil, "rev-parse", "HEAD")
	}
	run := &Run{spec: Spec{Repo: f.r}}
	run.Before = f.main
	commit("a/one.txt", "one")
	commit("a/b/two.txt", "two")
	git(t, f.root, nil, "branch", "side", f.main)
	git(t, wt, nil, "checkout", "-q", "side")
	commit("side.txt", "side")
	git(t, wt, nil, "checkout", "-q", f.branch)
	git(t, wt, nil, "merge", "-q", "--no-ff", "-m", "merge", "side")
	heads := []string{git(t, wt, nil, "rev-parse", "HEAD")}
	heads = append(heads, commit(".burl/x.md", "reserved"))
	for _, head := range heads {
		got, ok := run.firstParentPaths(head)
		if !ok {
			t.Fatalf("no walk for %s", head)
		}
		out := git(t, f.root, nil, "log", "--no-renames", "--name-only", "--format=", "-m", "--first-parent", f.main+".."+head)
		var want []string
		for _, l := range strings.Split(out, "\n") {
			if l != "" {
				want = append(want, l)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: walk %q, git log %q", head, got, want)
		}
	}
	if err := run.ownPaths(heads[1]); err == nil || !strings.Contains(err.Error(), ".burl/x.md") {
		t.Errorf("ownPaths of a commit writing .burl/x.md: %v", err)
	}
	if err := run.ownPaths(heads[0]); err != nil {
		t.Errorf("ownPaths of a line and a merge writing no reserved path: %v", err)
	}
}

// A worktree holds one of burl's paths in any letter case, nested ones
// through real folders only; a run that made no commit but left one is
// refused at intake, as one that committed it is.
func TestHoldsReservedAndLeftoversInBurlsPaths(t *testing.T) {
	wt := t.TempDir()
	reserved := []string{".burl", "tools/.worktrees"}
	if holdsReserved(wt, reserved) {
		t.Fatal("an empty worktree holds a reserved path")
	}
	os.MkdirAll(filepath.Join(wt, "TOOLS"), 0o755)
	os.WriteFile(filepath.Join(wt, "tools.txt"), nil, 0o644)
	os.Symlink("/tmp", filepath.Join(wt, "TOOLS", "elsewhere"))
	if holdsReserved(wt, reserved) {
		t.Fatal("a folder on the way holds a reserved path")
	}
	os.WriteFile(filepath.Join(wt, "TOOLS", ".Worktrees"), nil, 0o644)
	if !holdsReserved(wt, reserved) {
		t.Fatal("tools/.worktrees in other letters is not found")
	}
	wt2 := t.TempDir()
	os.Symlink("/tmp", filepath.Join(wt2, ".BURL"))
	if !holdsReserved(wt2, reserved) {
		t.Fatal("a link named .burl is not found")
	}

	f := newFixture(t)
	run := f.prepare(t, true)
	os.MkdirAll(filepath.Join(f.wt, ".Burl", ".workflow", "READY"), 0o755)
	os.WriteFile(filepath.Join(f.wt, ".Burl", ".workflow", "READY", "TASK-900-x.md"), []byte("planted\n"), 0o644)
	if _, err := run.Receive(true, "Title\n"); err == nil || !strings.Contains(err.Error(), "burl's own path") {
		t.Fatalf("Receive of a leftover under .Burl/ = %v", err)
	}
	if f.tip(t) != f.main {
		t.Fatal("the task branch moved")
	}
}
