// Package layout holds no code: its tests keep the shape of pkg/ that
// DESIGN §28 asks for (issue 43), no package over 3,000 lines and every
// import running down the layers, so that a split once made stays made.
package layout

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/burl-dev/burl/"

// maxLines is the most a package under pkg/ may hold, counted over all
// its .go files, tests included (as `cat pkg/X/*.go | wc -l` counts).
const maxLines = 3000

// over are the packages still above maxLines while they are being split,
// each with its count when it was listed: a ratchet. One fails when it
// grows past its count, and once it is under the limit it must come off
// this list, so that the list only ever shrinks to empty.
//
// land and watch came off it on 2026-11-28, split with their state passed
// down (landforge below land, landsync above it; runcheck, agentbox,
// brief, attempts and trustcheck below watch).
var over = map[string]int{}

// packages are the directories under pkg/ that hold Go files, by their
// path from the repository root, with the files' names.
func packages(t *testing.T) map[string][]string {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string][]string{}
	err := filepath.WalkDir(filepath.Join(root, "pkg"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			out[rel] = append(out[rel], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no Go package found under pkg/")
	}
	return out
}

func TestNoPackageOverTheLimit(t *testing.T) {
	pkgs := packages(t)
	for dir, files := range pkgs {
		n := 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			n += bytes.Count(data, []byte("\n"))
		}
		was, listed := over[dir]
		switch {
		case listed && n > was:
			t.Errorf("%s holds %d lines, more than the %d it held when listed as still to split: split it, or at least do not let it grow", dir, n, was)
		case listed && n <= maxLines:
			t.Errorf("%s holds %d lines, within the limit of %d: take it off the list in %s", dir, n, maxLines, "internal/layout/layout_test.go")
		case !listed && n > maxLines:
			t.Errorf("%s holds %d lines, over the limit of %d (all its .go files, tests included): split it along its seams into packages whose names say what they hold (DESIGN §28)", dir, n, maxLines)
		}
	}
	for dir := range over {
		if _, ok := pkgs[dir]; !ok {
			t.Errorf("%s is listed as still to split but is gone: take it off the list", dir)
		}
	}
}

// mayUse are the only packages that may depend, directly or through
// others, on the verbs and the loops that drive them (pkg/verb, pkg/watch,
// pkg/land, pkg/landsync), and on which of them: what holds today.
// Everything else sits below them; a package that needs one of their
// parts wants that part moved down, not an import up.
var mayUse = map[string][]string{
	"pkg/mcp":     {"pkg/land", "pkg/landsync", "pkg/verb", "pkg/watch"},
	"pkg/monitor": {"pkg/land"},
	// The board and the HTML report came out of monitor, and show the
	// queue as land plans it.
	"pkg/board":      {"pkg/land"},
	"pkg/htmlreport": {"pkg/land"},
	"pkg/verb":       {"pkg/land", "pkg/watch"},
	// The verbs' families, each on the frame in pkg/verb.
	"pkg/verb/authoring": {"pkg/land", "pkg/verb", "pkg/watch"},
	"pkg/verb/gates":     {"pkg/land", "pkg/verb", "pkg/watch"},
	"pkg/verb/upkeep":    {"pkg/land", "pkg/landsync", "pkg/verb", "pkg/watch"},
	"pkg/verb/views":     {"pkg/land", "pkg/landsync", "pkg/verb", "pkg/watch"},
	"pkg/watch":          {"pkg/land"},
	// What sync does about work landed on the remote: it records a
	// merged pull request through land's transition.
	"pkg/landsync": {"pkg/land"},
}

// belowWorkflow are the packages split out of pkg/workflow (issue 43):
// the workflow composes them, so none of them may depend on it.
var belowWorkflow = []string{
	"pkg/bucket", "pkg/claimorder", "pkg/commands", "pkg/gateinput", "pkg/provenance",
	"pkg/remote", "pkg/setup", "pkg/sparse", "pkg/statuscache", "pkg/taskbranch",
}

// imports is each package's imports of this module's packages, read from
// its non-test files.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	for dir, files := range packages(t) {
		seen := map[string]bool{}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range af.Imports {
				p, err := strconv.Unquote(spec.Path.Value)
				if err != nil {
					t.Fatal(err)
				}
				if rel, ok := strings.CutPrefix(p, module); ok && !seen[rel] {
					seen[rel] = true
					out[dir] = append(out[dir], rel)
				}
			}
		}
	}
	return out
}

// deps is every package of the module that pkg depends on, directly or
// not, with the chain of imports that reaches each.
func deps(graph map[string][]string, pkg string) map[string]string {
	chain := map[string]string{}
	var walk func(p, via string)
	walk = func(p, via string) {
		for _, q := range graph[p] {
			if _, ok := chain[q]; ok || q == pkg {
				continue
			}
			chain[q] = via + " -> " + q
			walk(q, chain[q])
		}
	}
	walk(pkg, pkg)
	return chain
}

func TestImportsRunDownTheLayers(t *testing.T) {
	graph := imports(t)
	upper := []string{"pkg/land", "pkg/landsync", "pkg/verb", "pkg/watch"}
	var dirs []string
	for dir := range graph {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		reach := deps(graph, dir)
		for _, u := range upper {
			via, ok := reach[u]
			if !ok || u == dir || contains(mayUse[dir], u) {
				continue
			}
			t.Errorf("%s depends on %s (%s): only %v may; move what it needs below %s instead", dir, u, via, keys(mayUse), u)
		}
	}
	for _, low := range belowWorkflow {
		if _, ok := graph[low]; !ok {
			t.Errorf("%s, split out of pkg/workflow, is gone: update belowWorkflow", low)
			continue
		}
		if via, ok := deps(graph, low)["pkg/workflow"]; ok {
			t.Errorf("%s depends on pkg/workflow (%s), which composes it: pass it what it needs instead", low, via)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
