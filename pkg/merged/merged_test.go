package merged

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/burl-dev/burl/pkg/gitx"
)

// repo makes a real repository with main at one commit and a task branch of
// two commits forked from it; it returns the git, the fork point and head.
func repo(t *testing.T) (gitx.Git, string, string) {
	t.Helper()
	dir := t.TempDir()
	g := gitx.In(dir)
	run := func(args ...string) string {
		t.Helper()
		out, err := g.Run(args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		run("add", name)
		run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", name)
	}
	run("init", "-q", "-b", "main")
	write("a", "a\n")
	base := run("rev-parse", "HEAD")
	run("checkout", "-qb", "task")
	write("b", "b\n")
	write("c", "c\n")
	head := run("rev-parse", "HEAD")
	run("checkout", "-q", "main")
	write("other", "unrelated\n") // main moved on, so no fast-forward is possible
	return g, base, head
}

func git(t *testing.T, g gitx.Git, args ...string) string {
	t.Helper()
	out, err := g.Run(append([]string{"-c", "user.name=m", "-c", "user.email=m@m"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLandedByStyle(t *testing.T) {
	for _, tc := range []struct {
		name, how string
		merge     func(g gitx.Git, head string)
	}{
		{"merge commit", ByAncestry, func(g gitx.Git, head string) { git(t, g, "merge", "-q", "--no-ff", "-m", "m", head) }},
		{"rebase", ByCherry, func(g gitx.Git, head string) { git(t, g, "cherry-pick", "main.."+head) }},
		{"squash", BySquash, func(g gitx.Git, head string) {
			git(t, g, "merge", "-q", "--squash", head)
			git(t, g, "commit", "-qm", "squashed")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, base, head := repo(t)
			if sha, _, err := Landed(g, base, head, "main"); err != nil || sha != "" {
				t.Fatalf("before merge: sha %q err %v, want not landed", sha, err)
			}
			tc.merge(g, head)
			sha, how, err := Landed(g, base, head, "main")
			if err != nil {
				t.Fatal(err)
			}
			if want := git(t, g, "rev-parse", "main"); sha != want || how != tc.how {
				t.Fatalf("got %s by %s, want %s by %s", sha, how, want, tc.how)
			}
		})
	}
}

func TestLandedPartialIsNotLanded(t *testing.T) {
	g, base, head := repo(t)
	git(t, g, "cherry-pick", head+"~1") // only the first of the two task commits
	if sha, how, err := Landed(g, base, head, "main"); err != nil || sha != "" {
		t.Fatalf("half the work on main counted as landed: %s by %s, err %v", sha, how, err)
	}
}
