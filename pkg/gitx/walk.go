package gitx

import (
	"bytes"
	"strconv"
	"strings"
)

// Commit walks answered through the process's cat-file (DESIGN §28): the
// questions burl asks of a task's few commits (how many since its base,
// is its base where its history starts) were a rev-list or a merge-base
// each. A walk answers only when its answer is exact; otherwise git is
// asked.

// walkLimit bounds the commits a walk reads before it leaves the question
// to git, which reads a long history faster (commit-graph).
const walkLimit = 100

// Since is the commits reachable from tip and not from base (tip's own
// since base, as rev-list base..tip lists them), when every path back from
// tip reaches base within walkLimit commits: each of them then descends
// from base, so none is reachable from it. ok is false otherwise (a path
// that reaches a root or goes on too long, a name that is no commit).
func (g Git) Since(base, tip string) (commits []string, ok bool) {
	var ends []string
	err := g.Cat([]string{base + "^{commit}", tip + "^{commit}"}, false, func(_ int, oid, kind string, _ []byte) error {
		if kind == "commit" {
			ends = append(ends, oid)
		}
		return nil
	})
	if err != nil || len(ends) != 2 {
		return nil, false
	}
	b := ends[0]
	seen := map[string]bool{}
	front := []string{ends[1]}
	if front[0] == b {
		return nil, true
	}
	for len(front) > 0 {
		if len(seen)+len(front) > walkLimit {
			return nil, false
		}
		var next []string
		bad := false
		err := g.Cat(front, true, func(i int, _, kind string, body []byte) error {
			ps := parents(body)
			if kind != "commit" || len(ps) == 0 {
				bad = true
				return nil
			}
			seen[front[i]] = true
			commits = append(commits, front[i])
			for _, p := range ps {
				if p != b && !seen[p] && !contains(next, p) {
					next = append(next, p)
				}
			}
			return nil
		})
		if err != nil || bad {
			return nil, false
		}
		front = next[:0:0]
		for _, p := range next {
			if !seen[p] {
				front = append(front, p)
			}
		}
	}
	return commits, true
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// parents are the parent ids a commit's body names.
func parents(body []byte) []string {
	var ps []string
	for len(body) > 0 {
		line, rest, _ := bytes.Cut(body, []byte("\n"))
		if len(line) == 0 {
			break
		}
		if p, ok := bytes.CutPrefix(line, []byte("parent ")); ok {
			ps = append(ps, string(p))
		}
		body = rest
	}
	return ps
}

// revListCount answers "rev-list --count [--end-of-options] A..B" by a
// walk (Since), as revParse does rev-parse; ok is false where git must.
func (g Git) revListCount(args []string) (out []byte, ok bool) {
	if len(args) < 3 || args[0] != "rev-list" || args[1] != "--count" {
		return nil, false
	}
	rng := args[2:]
	if rng[0] == "--end-of-options" {
		rng = rng[1:]
	}
	if len(rng) != 1 {
		return nil, false
	}
	base, tip, found := strings.Cut(rng[0], "..")
	if !found || base == "" || tip == "" || strings.HasPrefix(tip, ".") || strings.HasPrefix(base, "-") || strings.ContainsAny(rng[0], "\n\r") {
		return nil, false
	}
	cs, ok := g.Since(base, tip)
	if !ok {
		return nil, false
	}
	return []byte(strconv.Itoa(len(cs)) + "\n"), true
}

// isAncestor answers "merge-base --is-ancestor [--end-of-options] A B" by
// a walk back from B within walkLimit commits: met A (exit 0), or every
// path ended at a root without it (exit 1, as git's). ok is false where
// git must: a name that is no commit, a parent the store lacks (a shallow
// clone's edge), a history longer than the walk.
func (g Git) isAncestor(args []string) (err error, ok bool) {
	if len(args) < 4 || args[0] != "merge-base" || args[1] != "--is-ancestor" {
		return nil, false
	}
	names := args[2:]
	if names[0] == "--end-of-options" {
		names = names[1:]
	}
	if len(names) != 2 || strings.HasPrefix(names[0], "-") || strings.HasPrefix(names[1], "-") || strings.ContainsAny(names[0]+names[1], "\n\r") {
		return nil, false
	}
	var ends []string
	if g.Cat([]string{names[0] + "^{commit}", names[1] + "^{commit}"}, false, func(_ int, oid, kind string, _ []byte) error {
		if kind == "commit" {
			ends = append(ends, oid)
		}
		return nil
	}) != nil || len(ends) != 2 {
		return nil, false
	}
	a := ends[0]
	seen := map[string]bool{ends[1]: true}
	front := []string{ends[1]}
	for len(front) > 0 {
		if contains(front, a) {
			return nil, true
		}
		if len(seen) > walkLimit {
			return nil, false
		}
		var next []string
		bad := false
		if g.Cat(front, true, func(_ int, _, kind string, body []byte) error {
			if kind != "commit" {
				bad = true
				return nil
			}
			for _, p := range parents(body) {
				if !seen[p] {
					seen[p] = true
					next = append(next, p)
				}
			}
			return nil
		}) != nil || bad {
			return nil, false
		}
		front = next
	}
	return &Error{Args: args, Dir: g.Dir, ExitCode: 1}, true
}
