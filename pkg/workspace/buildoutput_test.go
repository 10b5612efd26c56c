package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/gitx"
)

func TestUncommittedLeavesOutOnlyWhatABuildCreated(t *testing.T) {
	dir, _ := newRepo(t)
	g := gitx.In(dir)
	write := func(name, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tracked.txt", "a\n")
	write("moved.txt", "m\n")
	gittest.Git(t, dir, "add", "tracked.txt", "moved.txt")
	gittest.Git(t, dir, "commit", "-q", "-m", "files")
	write("mine.txt", "the worker's\n")
	before, err := Untracked(g)
	if err != nil {
		t.Fatal(err)
	}
	write("app.bin", "built\n")
	write("out/obj.o", "built\n")
	if err := RecordBuildOutput(g, before); err != nil {
		t.Fatal(err)
	}
	changes, onlyBuild, err := Uncommitted(g)
	if err != nil || changes != "?? mine.txt" || onlyBuild {
		t.Fatalf("Uncommitted = %q, %v, %v; want the worker's file only", changes, onlyBuild, err)
	}
	// A tracked edit (" M", which starts with a space) and a rename (two
	// entries under -z) are the worker's too.
	write("tracked.txt", "b\n")
	gittest.Git(t, dir, "mv", "moved.txt", "renamed.txt")
	if changes, _, _ = Uncommitted(g); changes != "R  renamed.txt\n M tracked.txt\n?? mine.txt" {
		t.Fatalf("Uncommitted = %q", changes)
	}
	gittest.Git(t, dir, "reset", "-q", "--hard")
	if err := os.Remove(filepath.Join(dir, "mine.txt")); err != nil {
		t.Fatal(err)
	}
	if changes, onlyBuild, _ = Uncommitted(g); changes != "" || !onlyBuild {
		t.Fatalf("Uncommitted = %q, %v; want nothing but build output", changes, onlyBuild)
	}
}

// UncommittedAt reads porcelain v2: its lines are v1's, and HEAD is the
// commit rev-parse names.
func TestUncommittedAtShowsWhatPorcelainV1ShowsAndHead(t *testing.T) {
	dir := gittest.NewRepo(t)
	g := gitx.In(dir)
	for _, f := range []string{"a.txt", "b.txt", "old name.txt", "gone.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Git(t, dir, "add", "-A")
	gittest.Git(t, dir, "commit", "-q", "-m", "files")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("staged\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "add", "b.txt")
	gittest.Git(t, dir, "mv", "old name.txt", "new name.txt")
	gittest.Git(t, dir, "rm", "-q", "gone.txt")
	if err := os.WriteFile(filepath.Join(dir, "new file.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changes, onlyBuild, head, err := UncommittedAt(g)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	v1 := strings.Split(string(gittest.Output(t, dir, "status", "--porcelain", "-z", "--untracked-files=all")), "\x00")
	for i := 0; i < len(v1); i++ {
		if len(v1[i]) < 4 {
			continue
		}
		want = append(want, v1[i])
		if v1[i][0] == 'R' {
			i++ // the rename's source
		}
	}
	if changes != strings.Join(want, "\n") || onlyBuild {
		t.Errorf("UncommittedAt = %q (onlyBuild %v), git status --porcelain shows %q", changes, onlyBuild, strings.Join(want, "\n"))
	}
	if rev := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD")); head != rev {
		t.Errorf("head %q, rev-parse HEAD %q", head, rev)
	}
}
