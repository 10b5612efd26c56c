package gitx

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
)

// rev-list --count answered by a walk gives what rev-list gives, and is
// left to git where a walk cannot be exact.
func TestRevListCountByWalkAgreesWithRevList(t *testing.T) {
	h := newMergeHistory(t)
	dir, base, side, tip := h.dir, h.base, h.side, h.tip
	g := In(dir)
	for _, rng := range []string{base + ".." + tip, side + ".." + tip, tip + ".." + base, base + ".." + base, "HEAD~1..HEAD"} {
		args := []string{"rev-list", "--count", "--end-of-options", rng}
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		want, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.Run(args...)
		if err != nil || got != strings.TrimSpace(string(want)) {
			t.Errorf("%s: %q %v, rev-list says %q", rng, got, err, want)
		}
	}
	if _, ok := g.revListCount([]string{"rev-list", "--count", base + ".." + tip}); !ok {
		t.Error("a branch's commits since its base are not counted by a walk")
	}
	// side..tip: a path back from tip reaches the root without side.
	if _, ok := g.revListCount([]string{"rev-list", "--count", side + ".." + tip}); ok {
		t.Error("a range whose base is not where every path ends was answered by a walk")
	}
}

// merge-base --is-ancestor answered by a walk gives git's exit code, both
// ways, through merges and across unrelated histories; a walk that would
// run past its limit leaves the question to git.
func TestIsAncestorByWalkAgreesWithMergeBase(t *testing.T) {
	h := newMergeHistory(t)
	dir, base, side, one, tip, commit := h.dir, h.base, h.side, h.one, h.tip, h.commit
	gittest.Git(t, dir, "checkout", "-q", "--orphan", "other")
	other := commit("other")
	g := In(dir)
	pairs := [][2]string{{base, tip}, {tip, base}, {side, tip}, {side, one}, {one, side}, {tip, tip}, {other, tip}, {tip, other}, {"main", tip}}
	for _, p := range pairs {
		cmd := exec.Command("git", "merge-base", "--is-ancestor", p[0], p[1])
		cmd.Dir = dir
		want := cmd.Run() == nil
		if _, ok := g.isAncestor([]string{"merge-base", "--is-ancestor", p[0], p[1]}); !ok {
			t.Errorf("%s %s: not answered by a walk", p[0], p[1])
		}
		got, err := g.Test("merge-base", "--is-ancestor", "--end-of-options", p[0], p[1])
		if err != nil || got != want {
			t.Errorf("is-ancestor %s %s = %v %v, git says %v", p[0], p[1], got, err, want)
		}
	}
	gittest.Git(t, dir, "checkout", "-q", "main")
	for i := 0; i <= walkLimit; i++ {
		commit("long")
	}
	if _, ok := g.isAncestor([]string{"merge-base", "--is-ancestor", other, "HEAD"}); ok {
		t.Error("a walk past its limit answered")
	}
	if got, err := g.Test("merge-base", "--is-ancestor", other, "HEAD"); err != nil || got {
		t.Errorf("is-ancestor of an unrelated commit past the walk's limit = %v %v", got, err)
	}
}

// mergeHistory is a repository whose main is base, one, and the merge
// (tip) of side, a branch off base.
type mergeHistory struct {
	dir, base, side, one, tip string
	commit                    func(message string) string
}

func newMergeHistory(t *testing.T) mergeHistory {
	h := mergeHistory{dir: gittest.NewRepo(t)}
	h.commit = func(m string) string {
		gittest.Git(t, h.dir, "commit", "-q", "--allow-empty", "-m", m)
		return gittest.Git(t, h.dir, "rev-parse", "HEAD")
	}
	h.base = h.commit("base")
	gittest.Git(t, h.dir, "checkout", "-q", "-b", "side")
	h.side = h.commit("side")
	gittest.Git(t, h.dir, "checkout", "-q", "-")
	h.one = h.commit("one")
	gittest.Git(t, h.dir, "merge", "-q", "--no-ff", "-m", "merge", "side")
	h.tip = gittest.Git(t, h.dir, "rev-parse", "HEAD")
	return h
}
