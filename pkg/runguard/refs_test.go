package runguard

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
)

// A Guard of a repository without a sandbox finds every ref the run
// changed, packed ones included, and puts each back; a ref its explainer
// gives to burl is left.
func TestGuardRefsFoundAndPutBack(t *testing.T) {
	gittest.Isolate(t)
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	one := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	two := gittest.Git(t, dir, "rev-parse", "HEAD")
	gittest.Git(t, dir, "tag", "v1", one)
	gittest.Git(t, dir, "branch", "other", one)
	gittest.Git(t, dir, "pack-refs", "--all")
	gittest.Git(t, dir, "branch", "burl-ok", one)
	common := filepath.Join(dir, ".git")
	g, err := Record(GuardSpec{Root: dir, CommonDir: common, WorkflowWorktree: dir, Unconfined: true})
	if err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "tag", "-d", "v1")
	gittest.Git(t, dir, "update-ref", "refs/heads/other", two)
	gittest.Git(t, dir, "update-ref", "refs/heads/burl-ok", two)
	gittest.Git(t, dir, "tag", "v2")
	if err := os.WriteFile(filepath.Join(common, "objects", "info", "alternates"), []byte("/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := g.Changes(func(c RefChange) bool { return c.Name == "refs/heads/burl-ok" })
	if !rep.Undone || len(rep.Changes) != 4 {
		t.Fatalf("report: %+v", rep)
	}
	if got := gittest.Git(t, dir, "rev-parse", "v1", "other", "burl-ok"); got != one+"\n"+one+"\n"+two {
		t.Fatalf("not put back: %s", got)
	}
	if _, err := os.Stat(filepath.Join(common, "objects", "info", "alternates")); err == nil {
		t.Fatal("alternates left")
	}
	if out, _ := exec.Command("git", "-C", dir, "rev-parse", "-q", "--verify", "refs/tags/v2").Output(); len(out) != 0 {
		t.Fatal("v2 left")
	}
}

// A directory on the way to burl's state, renamed aside and made anew,
// is a replacement until the original is back.
func TestGuardStateDirectoryReplaced(t *testing.T) {
	gittest.Isolate(t)
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q")
	state := filepath.Join(dir, "home", ".local", "state", "burl")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	g, err := Record(GuardSpec{Root: dir, CommonDir: filepath.Join(dir, ".git"), WorkflowWorktree: dir, State: []string{state}})
	if err != nil {
		t.Fatal(err)
	}
	if rep := g.Changes(nil); len(rep.Changes) != 0 {
		t.Fatalf("changes before any: %+v", rep)
	}
	up := filepath.Join(dir, "home", ".local", "state")
	if err := os.Rename(up, up+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	rep := g.Changes(nil)
	if len(rep.Replaced) != 1 || rep.Replaced[0].path != up || rep.Replaced[0].Restored() {
		t.Fatalf("replacement: %+v", rep)
	}
	os.RemoveAll(up)
	if err := os.Rename(up+".old", up); err != nil {
		t.Fatal(err)
	}
	if !rep.Replaced[0].Restored() {
		t.Fatal("put back, yet not restored")
	}
}

// manyRefs is a repository with 1,000 branches and 1,000 tags, loose.
func manyRefs(b *testing.B) (dir, head string) {
	gittest.Isolate(b)
	dir = b.TempDir()
	gittest.Git(b, dir, "init", "-q", "-b", "main")
	gittest.Git(b, dir, "commit", "-q", "--allow-empty", "-m", "one")
	var in strings.Builder
	head = gittest.Git(b, dir, "rev-parse", "HEAD")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&in, "create refs/heads/b%d %s\ncreate refs/tags/t%d %s\n", i, head, i, head)
	}
	cmd := exec.Command("git", "-C", dir, "update-ref", "--stdin")
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	return dir, head
}

// What a run without a sandbox costs the guard, before and after, with
// 2,000 refs (1,500 of them loose).
func BenchmarkGuardUnconfined(b *testing.B) {
	dir, head := manyRefs(b)
	t := &testing.T{}
	gittest.Git(t, dir, "pack-refs")
	for i := 0; i < 500; i++ {
		gittest.Git(t, dir, "update-ref", fmt.Sprintf("refs/heads/b%d", i), head)
	}
	spec := GuardSpec{Root: dir, CommonDir: filepath.Join(dir, ".git"), WorkflowWorktree: dir, Unconfined: true}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, err := Record(spec)
		if err != nil {
			b.Fatal(err)
		}
		if r := g.Changes(nil); len(r.Changes) != 0 {
			b.Fatal(r.Changes)
		}
	}
}

func BenchmarkReadRefs(b *testing.B) {
	dir, _ := manyRefs(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ReadRefs(filepath.Join(dir, ".git")); err != nil {
			b.Fatal(err)
		}
	}
}
