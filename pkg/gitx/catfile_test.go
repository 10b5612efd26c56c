package gitx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
)

// realRevParse runs rev-parse itself, bypassing the cat-file answer.
func realRevParse(dir string, args ...string) (string, int) {
	cmd := exec.Command("git", append([]string{"rev-parse"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return strings.TrimSpace(string(out)), code
}

// The rev-parse forms answered through cat-file give what rev-parse
// gives: output and exit code.
func TestRevParseThroughCatFileAgreesWithRevParse(t *testing.T) {
	dir := gittest.NewRepo(t)
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	missing := strings.Repeat("ab", 20)
	cases := [][]string{
		{"HEAD"},
		{"HEAD^", "HEAD"},
		{"-q", "--verify", "HEAD^{commit}"},
		{"--verify", "-q", "refs/heads/nope"},
		{"--verify", "--quiet", "HEAD^{tree}"},
		{"refs/heads/nope"},
		{"--verify", "refs/heads/nope^{commit}"},
		{missing},
		{"-q", "--verify", missing},
	}
	g := In(dir)
	for _, c := range cases {
		args := append([]string{"rev-parse"}, c...)
		if _, _, ok := g.revParse(args); !ok {
			t.Fatalf("git %v is not answered through cat-file", args)
		}
		got, err := g.Run(args...)
		want, code := realRevParse(dir, c...)
		if got != want || ExitCodeOf(err) != code && !(code == 0 && err == nil) {
			t.Errorf("git %v: %q exit %d, rev-parse gives %q exit %d", args, got, ExitCodeOf(err), want, code)
		}
	}
	for _, c := range [][]string{{"--git-path", "hooks"}, {"-q", "HEAD"}, {"--verify", "HEAD", "HEAD^"}, {"--", "HEAD"}} {
		if _, _, ok := g.revParse(append([]string{"rev-parse"}, c...)); ok {
			t.Errorf("git rev-parse %v is answered through cat-file; only the plain forms are", c)
		}
	}
}

// The one cat-file a process keeps sees every later write: a moved ref, a
// new object, a worktree's directory removed and made again.
func TestCatSeesWritesAfterItStarted(t *testing.T) {
	dir := gittest.NewRepo(t)
	g := In(dir)
	first, err := g.Resolve("HEAD")
	if err != nil || first == "" {
		t.Fatalf("HEAD: %q %v", first, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a b.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "add", "a b.txt")
	gittest.Git(t, dir, "commit", "-q", "-m", "two")
	second, _ := g.Resolve("HEAD")
	if second == first || second == "" {
		t.Fatalf("HEAD after a commit: %q, was %q", second, first)
	}
	body, err := g.Blob("HEAD:a b.txt")
	if err != nil || string(body) != "hello\n" {
		t.Fatalf("HEAD:a b.txt = %q, %v", body, err)
	}
	if _, err := g.Blob("HEAD:nope"); ExitCodeOf(err) != 128 {
		t.Fatalf("a missing blob: %v, want git's exit 128", err)
	}
	if !g.Has(second+"^{commit}") || g.Has(second+"^{tree}^{commit}") {
		t.Fatal("Has does not tell a commit from what is none")
	}

	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Git(t, dir, "worktree", "add", "-q", "--detach", wt, first)
	w := In(wt)
	if h, _ := w.Resolve("HEAD"); h != first {
		t.Fatalf("worktree HEAD %q, want %q", h, first)
	}
	gittest.Git(t, dir, "worktree", "remove", "--force", wt)
	gittest.Git(t, dir, "worktree", "add", "-q", "--detach", wt, second)
	if h, err := w.Resolve("HEAD"); h != second {
		t.Fatalf("worktree made again: HEAD %q (%v), want %q", h, err, second)
	}
}

// A process keeps at most maxCat cat-files, however many directories it
// reads.
func TestCatProcessesAreBounded(t *testing.T) {
	dir := gittest.NewRepo(t)
	for i := 0; i < maxCat+3; i++ {
		d := filepath.Join(dir, "d", strings.Repeat("x", i+1))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if !In(d).Has("HEAD") {
			t.Fatalf("HEAD unread in %s", d)
		}
	}
	catMu.Lock()
	n := len(catProcs)
	catMu.Unlock()
	if n > maxCat {
		t.Fatalf("%d cat-files kept, at most %d", n, maxCat)
	}
}

func TestShowRefThroughCatFile(t *testing.T) {
	dir := gittest.NewRepo(t)
	g := In(dir)
	head, _ := g.Run("symbolic-ref", "HEAD")
	for ref, want := range map[string]bool{head: true, "refs/heads/nope": false} {
		args := []string{"show-ref", "--verify", "-q", ref}
		if _, ok := g.showRef(args); !ok {
			t.Fatalf("git %v is not answered through cat-file", args)
		}
		if got, err := g.Test(args...); got != want || err != nil {
			t.Errorf("git %v: %v %v, want %v", args, got, err, want)
		}
	}
	if _, ok := g.showRef([]string{"show-ref", "--verify", "-q", "HEAD"}); ok {
		t.Error("show-ref of a name outside refs/ is answered through cat-file")
	}
}
