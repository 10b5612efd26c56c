package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/gitx"
)

// logGit makes every git burl starts log its arguments, a line each;
// the returned function reads the log.
func logGit(t *testing.T) func() []string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	wrapper := filepath.Join(dir, "git")
	script := "#!/bin/sh\necho \"$*\" >>'" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	old := gitx.Program()
	gitx.SetProgram(wrapper)
	t.Cleanup(func() { gitx.SetProgram(old) })
	return func() []string {
		data, _ := os.ReadFile(log)
		return strings.Fields(strings.ReplaceAll(string(data), " ", "_"))
	}
}

// The run's packed-refs is what for-each-ref lists of the shared
// branches, tags and remote-tracking refs (origin/HEAD as its target's
// commit), the task's own branch left out: as a file of its own.
func wantPacked(t *testing.T, f *fixture) string {
	t.Helper()
	out := git(t, f.root, nil, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/remotes", "refs/tags")
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		name, oid, _ := strings.Cut(l, " ")
		if name != "refs/heads/"+f.branch {
			lines = append(lines, oid+" "+name+"\n")
		}
	}
	sort.Slice(lines, func(i, j int) bool { return strings.Fields(lines[i])[1] < strings.Fields(lines[j])[1] })
	return "# pack-refs with: sorted \n" + strings.Join(lines, "")
}

// makeGitDir reads the shared refs as files, starting no git: packed
// ones, loose ones over them, an annotated tag and a symbolic
// origin/HEAD, and the task branch's commit exact (the intake's
// compare-and-swap base). Where the repository's refs may not be files
// (extensions.refStorage), it asks git, and the snapshot is the same.
func TestMakeGitDirReadsTheSharedRefsAsFiles(t *testing.T) {
	f := newFixture(t)
	git(t, f.root, nil, "tag", "-a", "-m", "one", "v1")
	git(t, f.root, nil, "update-ref", "refs/remotes/origin/main", "HEAD")
	git(t, f.root, nil, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	git(t, f.root, nil, "pack-refs", "--all")
	git(t, f.wt, nil, "commit", "-q", "--allow-empty", "-m", "work")
	git(t, f.root, nil, "commit", "-q", "--allow-empty", "-m", "main moves")
	git(t, f.root, nil, "tag", "-f", "-a", "-m", "again", "v1")
	git(t, f.root, nil, "update-ref", "refs/remotes/origin/main", "HEAD")
	git(t, f.root, nil, "tag", "v2", f.main)
	admin, err := AdminDir(f.r, f.wt)
	if err != nil {
		t.Fatal(err)
	}
	want := wantPacked(t, f)
	if !strings.Contains(want, " refs/remotes/origin/HEAD\n") || !strings.Contains(want, " refs/tags/v1\n") {
		t.Fatalf("the test's refs are not what it wants:\n%s", want)
	}
	started := logGit(t)
	for i, reftable := range []bool{false, true} {
		if reftable {
			cfg, _ := os.ReadFile(filepath.Join(f.r.CommonDir, "config"))
			// git 2.39 ignores the key in a repository of format 0.
			cfg = append(cfg, "[extensions]\n\trefStorage = reftable\n"...)
			if err := os.WriteFile(filepath.Join(f.r.CommonDir, "config"), cfg, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		gd := filepath.Join(t.TempDir(), "gd")
		before, err := makeGitDir(f.r, gd, Spec{Worktree: f.wt, Branch: f.branch}, admin)
		if err != nil {
			t.Fatal(err)
		}
		if before != f.tip(t) {
			t.Fatalf("before = %s, the task branch is at %s", before, f.tip(t))
		}
		got, err := os.ReadFile(filepath.Join(gd, "packed-refs"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("packed-refs (reftable %v):\n%s\nfor-each-ref:\n%s", reftable, got, want)
		}
		if n := len(started()); n != i {
			t.Fatalf("reftable %v: %d git processes in all: %v", reftable, n, started())
		}
	}
}
