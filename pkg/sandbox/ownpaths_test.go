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
