package review

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/gitx"
)

// The reviewer's checkout is a repository of its own at the head, with
// main at the base: what it commits there moves no ref of the shared
// repository and adds no object to its store.
func TestCheckoutIsDisposable(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_AUTHOR_NAME", "a")
	t.Setenv("GIT_AUTHOR_EMAIL", "a@b")
	t.Setenv("GIT_COMMITTER_NAME", "a")
	t.Setenv("GIT_COMMITTER_EMAIL", "a@b")
	repo := t.TempDir()
	g := gitx.Git{Dir: repo, OwnRepo: true}
	run := func(g gitx.Git, args ...string) string {
		t.Helper()
		out, err := g.Run(args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	run(g, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o644)
	run(g, "add", "a.txt")
	run(g, "commit", "-qm", "base")
	base := run(g, "rev-parse", "HEAD")
	run(g, "checkout", "-qb", "task-1")
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("two\n"), 0o644)
	// The author's attributes name a filter the user configured: burl's
	// checkout for the reviewer does not run it.
	os.WriteFile(filepath.Join(repo, ".gitattributes"), []byte("*.txt filter=planted\n"), 0o644)
	run(g, "add", ".gitattributes")
	run(g, "commit", "-qam", "work")
	ran := filepath.Join(t.TempDir(), "ran")
	t.Setenv("GIT_CONFIG_COUNT", "2")
	t.Setenv("GIT_CONFIG_KEY_0", "filter.planted.smudge")
	t.Setenv("GIT_CONFIG_VALUE_0", "touch "+ran+"; cat")
	t.Setenv("GIT_CONFIG_KEY_1", "filter.planted.required")
	t.Setenv("GIT_CONFIG_VALUE_1", "true")
	head := run(g, "rev-parse", "HEAD")
	refsBefore := run(g, "for-each-ref")
	objectsBefore := run(g, "count-objects", "-v")

	dir := filepath.Join(t.TempDir(), "src")
	if err := Checkout(dir, filepath.Join(repo, ".git", "objects"), "task-1", head, "main", base); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the checkout ran the filter the author's .gitattributes named")
	}
	c := gitx.Git{Dir: dir, OwnRepo: true}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "two\n" {
		t.Errorf("a.txt in the checkout: %q", data)
	}
	if b := run(c, "symbolic-ref", "--short", "HEAD"); b != "task-1" {
		t.Errorf("checked out %s", b)
	}
	if d := run(c, "diff", "--name-only", "main..HEAD"); d != ".gitattributes\na.txt" {
		t.Errorf("main..HEAD: %q", d)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hacked\n"), 0o644)
	run(c, "commit", "-qam", "hack")
	if run(g, "for-each-ref") != refsBefore || run(g, "count-objects", "-v") != objectsBefore {
		t.Error("a commit in the checkout changed the shared repository")
	}
	if strings.Contains(run(g, "log", "--all", "--format=%s"), "hack") {
		t.Error("the shared repository holds the checkout's commit")
	}
}
