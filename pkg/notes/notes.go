// Package notes keeps burl's landing records as git notes (DESIGN §22):
// one note per landed commit under refs/notes/burl, written with plumbing
// in one notes commit per landing, read in one pass, moved between
// clones with the workflow branch and merged by union.
//
// The notes tree is laid out as git notes lays out a large one: a folder
// per first two hex digits of the commit ("ab/cdef…"). A tree git notes
// wrote (flat, or deeper) is read as it is, and a note is replaced where
// it stands, so a commit never gets two.
package notes

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
)

// Ref holds the landing records.
const Ref = "refs/notes/burl"

// Tracking is the ref holding remote's notes as this clone last fetched
// them (outside refs/notes, so no tool shows them as notes of their own).
func Tracking(remote string) string { return "refs/burl/notes/" + remote + "/burl" }

// FetchSpec is the refspec that fetches remote's notes into Tracking. A
// pattern, because a remote without notes yet must not fail the fetch
// (an exact source that does not exist does).
func FetchSpec(remote string) string {
	return "+" + Ref + "*:refs/burl/notes/" + remote + "/burl*"
}

// PushSpec pushes this clone's notes to the remote's (fast-forward only:
// a remote that moved on is merged first). A pattern, so that a push from
// a clone with no notes yet pushes nothing of them instead of failing.
const PushSpec = Ref + "*:" + Ref + "*"

// Map is the notes of one notes commit: annotated commit → note blob.
type Map map[string]string

// tree is one folder of the notes tree as read, and as changed.
type tree struct {
	ents  map[string]gitobj.Entry
	dirty bool
}

// editor changes a notes tree folder by folder, reading only the folders
// on the paths it changes.
type editor struct {
	rd     *gitobj.Reader
	rawLen int
	trees  map[string]*tree // by path: "" the root, "ab", "ab/cd"
}

// load reads the folder p with object id oid ("" for a new folder).
func (e *editor) load(p, oid string) (*tree, error) {
	if t, ok := e.trees[p]; ok {
		return t, nil
	}
	t := &tree{ents: map[string]gitobj.Entry{}}
	if oid != "" {
		_, kind, body, err := e.rd.Read(oid)
		if err != nil {
			return nil, err
		}
		if kind != "tree" {
			return nil, fmt.Errorf("%s: %s is a %s, not a folder", Ref, p, kind)
		}
		if t.ents, err = gitobj.ParseTree(body, e.rawLen); err != nil {
			return nil, fmt.Errorf("%s: folder %q: %w", Ref, p, err)
		}
	}
	e.trees[p] = t
	return t, nil
}

// set makes blob the note of commit: where the note already is (any
// layout), else one folder below the root.
func (e *editor) set(commit, blob string) error {
	p, rest := "", commit
	for {
		t := e.trees[p]
		if ent, ok := t.ents[rest]; ok && !ent.Dir() {
			if ent.OID != blob {
				t.ents[rest] = gitobj.Entry{Mode: "100644", OID: blob}
				e.dirtyTo(p)
			}
			return nil
		}
		if len(rest) <= 2 {
			return fmt.Errorf("%s: no place for the note of %s", Ref, commit)
		}
		ent, ok := t.ents[rest[:2]]
		switch {
		case ok && ent.Dir():
			if _, err := e.load(path.Join(p, rest[:2]), ent.OID); err != nil {
				return err
			}
		case p == "" && !ok:
			if _, err := e.load(rest[:2], ""); err != nil {
				return err
			}
		default:
			t.ents[rest] = gitobj.Entry{Mode: "100644", OID: blob}
			e.dirtyTo(p)
			return nil
		}
		p, rest = path.Join(p, rest[:2]), rest[2:]
	}
}

// dirtyTo marks the folder p and every folder above it as changed.
func (e *editor) dirtyTo(p string) {
	for {
		e.trees[p].dirty = true
		if p == "" {
			return
		}
		if p = path.Dir(p); p == "." {
			p = ""
		}
	}
}

// write encodes the changed folders, deepest first, and returns the root
// tree's id and the objects to write ("" when nothing changed).
func (e *editor) write() (string, []gitobj.Object, error) {
	var paths []string
	for p, t := range e.trees {
		if t.dirty {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return "", nil, nil
	}
	sort.Slice(paths, func(i, j int) bool { return len(paths[i]) > len(paths[j]) })
	var objs []gitobj.Object
	root := ""
	for _, p := range paths {
		body, err := gitobj.EncodeTree(e.trees[p].ents, e.rawLen)
		if err != nil {
			return "", nil, err
		}
		o := gitobj.New("tree", body, e.rawLen)
		objs = append(objs, o)
		if p == "" {
			root = o.OID
			continue
		}
		parent := path.Dir(p)
		if parent == "." {
			parent = ""
		}
		e.trees[parent].ents[path.Base(p)] = gitobj.Entry{Mode: "40000", OID: o.OID}
	}
	return root, objs, nil
}

// Read lists every note of the notes commit rev (all of them, in any
// layout) with one git cat-file, asking for each level of folders at once.
// A missing rev is an empty map.
func Read(g gitx.Git, rev string) (Map, error) {
	return readMap(gitobj.NewReader(g), rev)
}

func readMap(rd *gitobj.Reader, rev string) (Map, error) {
	m := Map{}
	oid, kind, _, err := rd.Read(rev + "^{tree}")
	if err != nil || kind == "missing" {
		return m, err
	}
	rawLen := len(oid) / 2
	type folder struct{ prefix, oid string }
	level := []folder{{"", oid}}
	for len(level) > 0 {
		names := make([]string, len(level))
		for i, f := range level {
			names[i] = f.oid
		}
		var next []folder
		err := rd.Batch(names, func(i int, _, kind string, body []byte) error {
			if kind != "tree" {
				return fmt.Errorf("%s: folder %q is a %s", rev, level[i].prefix, kind)
			}
			ents, err := gitobj.ParseTree(body, rawLen)
			if err != nil {
				return fmt.Errorf("%s: folder %q: %w", rev, level[i].prefix, err)
			}
			for name, ent := range ents {
				full := level[i].prefix + name
				switch {
				case ent.Dir() && len(name) == 2 && isHex(name):
					next = append(next, folder{full, ent.OID})
				case !ent.Dir() && len(full) == 2*rawLen && isHex(full):
					m[full] = ent.OID
				}
				// Anything else is not a note: git notes ignores it too.
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		level = next
	}
	return m, nil
}

func isHex(s string) bool { return strings.Trim(s, "0123456789abcdef") == "" }
