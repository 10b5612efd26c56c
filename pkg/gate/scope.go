package gate

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/burl-dev/burl/pkg/repo"
)

// Scope is the part of a task file that says which paths the task may touch
// (PRD 8.1). Affects holds exact repo-relative paths, or directories when an
// entry ends with "/"; AffectsGlobs and MustNotTouch hold doublestar globs.
type Scope struct {
	Affects, AffectsGlobs, MustNotTouch []string
	// Reserved are burl's own paths (repo.Reserved), which no scope
	// allows.
	Reserved []string
}

// Change is one entry of `git diff --name-status`. Status is git's status
// letter ('A', 'M', 'D', 'R', 'C', 'T', 'U', ...); OldPath is set for
// renames and copies only.
type Change struct {
	Status        byte
	Path, OldPath string
}

const ruleNotAllowed = "not in affects/affects_globs"

// RuleReserved is the rule of a path no scope allows: burl's own.
const RuleReserved = "burl's own path"

// touchedPaths lists the paths a change modifies. A rename empties its old
// path, so both sides must be in scope; a copy leaves its source untouched.
func touchedPaths(c Change) []string {
	if c.Status == 'R' && c.OldPath != "" && c.OldPath != c.Path {
		return []string{c.OldPath, c.Path}
	}
	return []string{c.Path}
}

// CheckScope applies PRD 12.1 to the paths the changes touch. S1: a path
// matching a must_not_touch glob fails. S2: every other path must equal an
// affects entry, lie under an affects entry that ends with "/", or match an
// affects_globs glob. Before both, a path in Reserved fails whatever the
// scope (DESIGN §24): burl's own paths are never part of a change. A path
// gets one violation, the S1 one when both rules
// fail, because widening affects cannot fix it. An invalid glob is itself a
// violation: a must_not_touch entry that cannot be evaluated must not let
// anything through silently. Violations are sorted by file.
func CheckScope(s Scope, changes []Change) []Violation {
	var out []Violation
	bad := map[string]bool{}
	for _, g := range s.invalidGlobs() {
		bad[g.glob] = true
		out = append(out, Violation{
			Gate:    "scope",
			Rule:    g.field + ": " + g.glob,
			Message: fmt.Sprintf("invalid glob in %s: %q", g.field, g.glob),
		})
	}
	seen := map[string]bool{}
	for _, c := range changes {
		for _, p := range touchedPaths(c) {
			if seen[p] {
				continue
			}
			seen[p] = true
			if v, ok := s.checkPath(p, bad); !ok {
				out = append(out, v)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Rule < out[j].Rule
	})
	return out
}

func (s Scope) checkPath(p string, bad map[string]bool) (Violation, bool) {
	if r, ok := repo.ReservedPath(s.Reserved, p); ok {
		return Violation{Gate: "scope", File: p, Rule: RuleReserved,
			Message: fmt.Sprintf("%s  (%s: %s/ is never part of a task's change, whatever its scope)", p, RuleReserved, r)}, false
	}
	for _, g := range s.MustNotTouch {
		if !bad[g] && doublestar.MatchUnvalidated(g, p) {
			rule := "must_not_touch: " + g
			return Violation{Gate: "scope", File: p, Rule: rule, Message: p + "  (matches " + rule + ")"}, false
		}
	}
	if s.allows(p, bad) {
		return Violation{}, true
	}
	return Violation{Gate: "scope", File: p, Rule: ruleNotAllowed, Message: p + "  (" + ruleNotAllowed + ")"}, false
}

func (s Scope) allows(p string, bad map[string]bool) bool {
	for _, a := range s.Affects {
		if p == a || (strings.HasSuffix(a, "/") && strings.HasPrefix(p, a)) {
			return true
		}
	}
	for _, g := range s.AffectsGlobs {
		if !bad[g] && doublestar.MatchUnvalidated(g, p) {
			return true
		}
	}
	return false
}

type fieldGlob struct{ field, glob string }

func (s Scope) invalidGlobs() []fieldGlob {
	var out []fieldGlob
	for _, f := range []struct {
		name  string
		globs []string
	}{{"affects_globs", s.AffectsGlobs}, {"must_not_touch", s.MustNotTouch}} {
		for _, g := range f.globs {
			if !doublestar.ValidatePattern(g) {
				out = append(out, fieldGlob{f.name, g})
			}
		}
	}
	return out
}

// Validate reports the globs of s that doublestar cannot parse, so that a
// task file can be rejected when it is written rather than when it is gated.
func (s Scope) Validate() error {
	var errs []error
	for _, g := range s.invalidGlobs() {
		errs = append(errs, fmt.Errorf("invalid glob in %s: %q", g.field, g.glob))
	}
	return errors.Join(errs...)
}

// scopeEntry is one declared entry of a scope, classified for Overlap.
type scopeEntry struct {
	field, raw string
	kind       entryKind
	prefix     string // dirs and globs: the literal directory part, "" or ending in "/"
}

type entryKind int

const (
	entryPath entryKind = iota
	entryDir
	entryGlob
)

func (s Scope) entries() []scopeEntry {
	var out []scopeEntry
	for _, a := range s.Affects {
		if strings.HasSuffix(a, "/") {
			out = append(out, scopeEntry{field: "affects", raw: a, kind: entryDir, prefix: a})
		} else {
			out = append(out, scopeEntry{field: "affects", raw: a, kind: entryPath})
		}
	}
	for _, g := range s.AffectsGlobs {
		e := scopeEntry{field: "affects_globs", raw: g, kind: entryPath}
		if i := strings.IndexAny(g, `*?[{\`); i >= 0 {
			// Cut at a "/" so that src/a* and src/ab/x nest through src/.
			e.kind, e.prefix = entryGlob, g[:strings.LastIndexByte(g[:i], '/')+1]
		}
		out = append(out, e)
	}
	return out
}

// Overlap reports whether two tasks' declared scopes may touch a common file,
// for claim's conflict_policy. It errs towards reporting an overlap:
//   - a path overlaps an equal path, a directory entry containing it, and a
//     glob matching it;
//   - a directory or glob overlaps another directory or glob when their
//     static prefixes (the literal directories before the first glob
//     metacharacter, so "" for **/*.go) nest. Prefixes that do not nest
//     diverge at a literal directory, so nothing can match both; nesting ones
//     may still be disjoint (src/**/*.go and src/**/*.rs are reported);
//   - an invalid glob overlaps everything, since nothing can be proven.
//
// must_not_touch is not consulted: it narrows what a task may touch, and
// proving that a narrowing removes the overlap is beyond this check.
// The reason names the first overlapping pair, a's entry first.
func Overlap(a, b Scope) (bool, string) {
	return a.Prepare().Overlaps(b.Prepare())
}

// Prepared is a scope ready for many Overlap checks: status compares every
// READY task with every DOING one, and preparing each scope once keeps
// that from costing more than the rest of status.
type Prepared struct{ es []scopeEntry }

// Prepare returns s ready for Overlaps.
func (s Scope) Prepare() Prepared { return Prepared{s.entries()} }

// Overlaps is Overlap of the two prepared scopes.
func (p Prepared) Overlaps(q Prepared) (bool, string) {
	eb := q.es
	for _, x := range p.es {
		for _, y := range eb {
			if entriesOverlap(x, y) {
				return true, fmt.Sprintf("%s (%s) overlaps %s (%s)", x.raw, x.field, y.raw, y.field)
			}
		}
	}
	return false, ""
}

func entriesOverlap(x, y scopeEntry) bool {
	if x.kind > y.kind {
		x, y = y, x
	}
	switch {
	case x.kind == entryPath && y.kind == entryPath:
		return x.raw == y.raw
	case x.kind == entryPath && y.kind == entryDir:
		return strings.HasPrefix(x.raw, y.prefix)
	case x.kind == entryPath:
		m, err := doublestar.Match(y.raw, x.raw)
		return m || err != nil
	default:
		if (x.kind == entryGlob && !doublestar.ValidatePattern(x.raw)) || !doublestar.ValidatePattern(y.raw) {
			return true
		}
		return strings.HasPrefix(x.prefix, y.prefix) || strings.HasPrefix(y.prefix, x.prefix)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// Index finds, among many scopes (the DOING tasks'), the first that
// overlaps a given one, without comparing every pair: a scope of plain
// paths can only overlap a scope holding one of those paths or a directory
// or glob.
type Index struct {
	scopes []Prepared
	paths  map[string][]int // path entry → the scopes holding it, ascending
	wide   []int            // scopes with a directory or glob entry, ascending
}

// NewIndex indexes ss.
func NewIndex(ss []Scope) *Index {
	ix := &Index{paths: map[string][]int{}}
	for i, s := range ss {
		p := s.Prepare()
		ix.scopes = append(ix.scopes, p)
		wide := false
		for _, e := range p.es {
			if e.kind == entryPath {
				ix.paths[e.raw] = append(ix.paths[e.raw], i)
			} else {
				wide = true
			}
		}
		if wide {
			ix.wide = append(ix.wide, i)
		}
	}
	return ix
}

// First returns the index of the first indexed scope that overlaps s and
// why, or -1.
func (ix *Index) First(s Scope) (int, string) {
	p := s.Prepare()
	cands := ix.wide
	for _, e := range p.es {
		if e.kind != entryPath {
			cands = nil // a directory or glob: any scope may overlap it
			for i := range ix.scopes {
				cands = append(cands, i)
			}
			break
		}
		cands = append(cands, ix.paths[e.raw]...)
	}
	slices.Sort(cands)
	for _, i := range slices.Compact(cands) {
		if ok, why := p.Overlaps(ix.scopes[i]); ok {
			return i, why
		}
	}
	return -1, ""
}
