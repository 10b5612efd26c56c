package gate

import (
	"fmt"
	"math/rand"
	"testing"
)

// The index must name the same first overlapping scope as comparing every
// pair in order.
func TestIndexFirstAgreesWithPairwiseOverlap(t *testing.T) {
	pool := []string{"src/a.go", "src/b.go", "src/x/", "docs/", "src/x/y.go", "README.md"}
	globs := []string{"src/**", "src/x/*.go", "docs/**/*.md", "**/*.go", "src/[a-b].go", "lib/**"}
	rnd := rand.New(rand.NewSource(1))
	pick := func(from []string, max int) []string {
		var out []string
		for range rnd.Intn(max + 1) {
			out = append(out, from[rnd.Intn(len(from))])
		}
		return out
	}
	for round := range 300 {
		var doing []Scope
		for range 1 + rnd.Intn(6) {
			doing = append(doing, Scope{Affects: pick(pool, 2), AffectsGlobs: pick(globs, 1)})
		}
		ix := NewIndex(doing)
		s := Scope{Affects: pick(pool, 3), AffectsGlobs: pick(globs, 1)}
		want, wantWhy := -1, ""
		for i, d := range doing {
			if ok, why := Overlap(s, d); ok {
				want, wantWhy = i, why
				break
			}
		}
		got, why := ix.First(s)
		if got != want || why != wantWhy {
			t.Fatalf("round %d: %+v against %s: index says %d %q, pairwise %d %q", round, s, fmt.Sprint(doing), got, why, want, wantWhy)
		}
	}
}
