package gitobj

import (
	"fmt"
	"sort"

	"github.com/burl-dev/burl/pkg/gitx"
)

// ChangedPaths lists the paths whose entry differs between the trees of
// commits (or trees) old and new, as `git diff --no-renames --name-only
// old new` does (every file of a folder added or removed), read through
// the process's one cat-file (gitx.Cat): a folder's trees are asked for
// only when their ids differ, every folder of a level in one request.
func ChangedPaths(g gitx.Git, old, new string) ([]string, error) {
	type pair struct{ prefix, a, b string }
	var out []string
	level := []pair{{"", old + "^{tree}", new + "^{tree}"}}
	for len(level) > 0 {
		var names []string
		for _, p := range level {
			for _, t := range []string{p.a, p.b} {
				if t != "" {
					names = append(names, t)
				}
			}
		}
		trees := map[string]map[string]Entry{}
		err := g.Cat(names, true, func(i int, oid, kind string, body []byte) error {
			if kind != "tree" {
				return fmt.Errorf("%s is no tree (%s)", names[i], kind)
			}
			ents, err := ParseTree(body, len(oid)/2)
			trees[names[i]] = ents
			return err
		})
		if err != nil {
			return nil, err
		}
		var next []pair
		for _, p := range level {
			a, b := trees[p.a], trees[p.b]
			seen := map[string]bool{}
			for _, side := range []map[string]Entry{a, b} {
				for name := range side {
					if seen[name] {
						continue
					}
					seen[name] = true
					ea, inA := a[name]
					eb, inB := b[name]
					if inA && inB && ea == eb {
						continue
					}
					path := p.prefix + name
					var da, db string
					if inA && ea.Dir() {
						da = ea.OID
					} else if inA {
						out = append(out, path)
					}
					if inB && eb.Dir() {
						db = eb.OID
					} else if inB && !(inA && !ea.Dir()) {
						out = append(out, path)
					}
					if da != "" || db != "" {
						next = append(next, pair{path + "/", da, db})
					}
				}
			}
		}
		level = next
	}
	sort.Strings(out)
	return out, nil
}
