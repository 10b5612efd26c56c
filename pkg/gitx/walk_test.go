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
	dir := gittest.NewRepo(t)
	commit := func(m string) string {
		gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", m)
		return gittest.Git(t, dir, "rev-parse", "HEAD")
	}
	base := commit("base")
	gittest.Git(t, dir, "checkout", "-q", "-b", "side")
	side := commit("side")
	gittest.Git(t, dir, "checkout", "-q", "-")
	commit("one")
	gittest.Git(t, dir, "merge", "-q", "--no-ff", "-m", "merge", "side")
	tip := gittest.Git(t, dir, "rev-parse", "HEAD")
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
