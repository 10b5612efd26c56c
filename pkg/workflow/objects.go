package workflow

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
)

// The objects of a workflow commit, built here and written and read with
// git plumbing.

// dirsOf is every folder on the paths rels, the root ("") included.
func dirsOf(rels []string) []string {
	set := map[string]bool{"": true}
	for _, rel := range rels {
		for d := path.Dir(rel); d != "." && !set[d]; d = path.Dir(d) {
			set[d] = true
		}
	}
	dirs := make([]string, 0, len(set))
	for d := range set {
		dirs = append(dirs, d)
	}
	return dirs
}

// place puts each file of rels into its folder's entries in trees: its
// blob from blobs, or, when it has none, its removal.
func place(trees map[string]map[string]gitobj.Entry, root string, rels []string, blobs map[string]string) {
	for _, rel := range rels {
		d, name := path.Dir(rel), path.Base(rel)
		if d == "." {
			d = ""
		}
		if oid, ok := blobs[rel]; ok {
			mode := "100644"
			if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err == nil && st.Mode()&0o100 != 0 {
				mode = "100755"
			}
			trees[d][name] = gitobj.Entry{Mode: mode, OID: oid}
		} else {
			delete(trees[d], name)
		}
	}
}

// alongside runs f in its own goroutine; the function it returns waits for
// f and returns f's error.
func alongside(f func() error) func() error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	return func() error { return <-done }
}

// hashFiles writes the files rels as blobs with one git hash-object, which
// applies the repository's filters as git add would, and returns their ids.
func hashFiles(g gitx.Git, rels []string) (map[string]string, error) {
	blobs := map[string]string{}
	if len(rels) == 0 {
		return blobs, nil
	}
	out, err := g.RunInput([]byte(strings.Join(rels, "\n")+"\n"), "hash-object", "-w", "--stdin-paths")
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(rels) {
		return nil, fmt.Errorf("git hash-object: %d ids for %d files", len(ids), len(rels))
	}
	for i, rel := range rels {
		blobs[rel] = ids[i]
	}
	return blobs, nil
}

// buildTrees encodes the changed trees (the folders dirs, their entries in
// trees) deepest first, so a folder's id is known before its parent's is
// built, and returns the root tree's id and the trees, for writeObjects.
func buildTrees(dirs []string, trees map[string]map[string]gitobj.Entry, rawLen int) (string, []gitobj.Object, error) {
	sort.Slice(dirs, func(i, j int) bool {
		if di, dj := depth(dirs[i]), depth(dirs[j]); di != dj {
			return di > dj
		}
		return dirs[i] < dirs[j]
	})
	var tree string
	var writes []gitobj.Object
	for _, d := range dirs {
		ents := trees[d]
		parent, name := path.Dir(d), path.Base(d)
		if parent == "." {
			parent = ""
		}
		if len(ents) == 0 && d != "" {
			// git has no empty folders: it leaves its parent.
			delete(trees[parent], name)
			continue
		}
		body, err := gitobj.EncodeTree(ents, rawLen)
		if err != nil {
			return "", nil, err
		}
		o := gitobj.New("tree", body, rawLen)
		oid := o.OID
		writes = append(writes, o)
		if d == "" {
			tree = oid
		} else {
			trees[parent][name] = gitobj.Entry{Mode: "40000", OID: oid}
		}
	}
	if tree == "" {
		return "", nil, fmt.Errorf("no root tree was written")
	}
	return tree, writes, nil
}

func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

// readTrees reads HEAD's commit and the trees of dirs (a folder HEAD does
// not have is empty) with one git cat-file.
func readTrees(g gitx.Git, dirs []string) (string, map[string]map[string]gitobj.Entry, error) {
	names := []string{"HEAD"}
	for _, d := range dirs {
		names = append(names, "HEAD:"+d)
	}
	var head string
	trees := map[string]map[string]gitobj.Entry{}
	err := gitobj.CatBatch(g, names, func(i int, oid, kind string, body []byte) error {
		if i == 0 {
			if kind == "missing" {
				return errNoHead
			}
			head = oid
			return nil
		}
		d := dirs[i-1]
		ents := map[string]gitobj.Entry{}
		switch kind {
		case "missing":
		case "tree":
			var err error
			if ents, err = gitobj.ParseTree(body, len(oid)/2); err != nil {
				return fmt.Errorf("tree HEAD:%s: %w", d, err)
			}
		default:
			return fmt.Errorf("HEAD:%s is a %s, not a folder", d, kind)
		}
		trees[d] = ents
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	return head, trees, nil
}
