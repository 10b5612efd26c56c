package workflow

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
)

// The objects of a workflow commit, built here and written and read with
// git plumbing.

// treeEntry is one entry of a git tree.
type treeEntry struct{ mode, oid string }

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
func place(trees map[string]map[string]treeEntry, root string, rels []string, blobs map[string]string) {
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
			trees[d][name] = treeEntry{mode, oid}
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
func buildTrees(dirs []string, trees map[string]map[string]treeEntry, rawLen int) (string, []object, error) {
	sort.Slice(dirs, func(i, j int) bool {
		if di, dj := depth(dirs[i]), depth(dirs[j]); di != dj {
			return di > dj
		}
		return dirs[i] < dirs[j]
	})
	var tree string
	var writes []object
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
		body, err := encodeTree(ents, rawLen)
		if err != nil {
			return "", nil, err
		}
		oid := objectID("tree", body, rawLen)
		writes = append(writes, object{"tree", oid, body})
		if d == "" {
			tree = oid
		} else {
			trees[parent][name] = treeEntry{"40000", oid}
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

// catBatch reads the objects names (as "HEAD:path") with one git cat-file
// --batch and hands each to each in order: its id, its type ("missing"
// when there is none) and its content. The request is one name a line, so
// a name with a line break is refused before git could misread it.
func catBatch(g gitx.Git, names []string, each func(i int, oid, kind string, body []byte) error) error {
	var req strings.Builder
	for _, n := range names {
		if strings.ContainsAny(n, "\n\r") {
			return fmt.Errorf("git cat-file --batch cannot be asked for %q: it holds a line break", n)
		}
		req.WriteString(n + "\n")
	}
	out, err := g.RunInput([]byte(req.String()), "cat-file", "--batch")
	if err != nil {
		return err
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for i, name := range names {
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("git cat-file --batch: no answer for %s", name)
		}
		f := strings.Fields(line)
		if len(f) == 2 && f[1] == "missing" {
			if err := each(i, "", "missing", nil); err != nil {
				return err
			}
			continue
		}
		if len(f) != 3 {
			return fmt.Errorf("git cat-file --batch: %s: %q", name, strings.TrimSpace(line))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return fmt.Errorf("git cat-file --batch: %s: %q", name, strings.TrimSpace(line))
		}
		body := make([]byte, n+1)
		if _, err := io.ReadFull(r, body); err != nil {
			return err
		}
		if err := each(i, f[0], f[1], body[:n]); err != nil {
			return err
		}
	}
	return nil
}

// readTrees reads HEAD's commit and the trees of dirs (a folder HEAD does
// not have is empty) with one git cat-file.
func readTrees(g gitx.Git, dirs []string) (string, map[string]map[string]treeEntry, error) {
	names := []string{"HEAD"}
	for _, d := range dirs {
		names = append(names, "HEAD:"+d)
	}
	var head string
	trees := map[string]map[string]treeEntry{}
	err := catBatch(g, names, func(i int, oid, kind string, body []byte) error {
		if i == 0 {
			if kind == "missing" {
				return errNoHead
			}
			head = oid
			return nil
		}
		d := dirs[i-1]
		ents := map[string]treeEntry{}
		switch kind {
		case "missing":
		case "tree":
			var err error
			if ents, err = parseTree(body, len(oid)/2); err != nil {
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

// parseTree reads git's binary tree format: "mode name\0" and the raw
// object id of rawLen bytes, per entry.
func parseTree(b []byte, rawLen int) (map[string]treeEntry, error) {
	ents := map[string]treeEntry{}
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		nul := bytes.IndexByte(b, 0)
		if sp < 0 || nul < sp || len(b) < nul+1+rawLen {
			return nil, fmt.Errorf("malformed tree entry")
		}
		ents[string(b[sp+1:nul])] = treeEntry{string(b[:sp]), hex.EncodeToString(b[nul+1 : nul+1+rawLen])}
		b = b[nul+1+rawLen:]
	}
	return ents, nil
}

// object is an object to write: its kind ("tree", "commit"), the id
// computed here, and its content.
type object struct {
	kind, oid string
	body      []byte
}

// packTypes are the pack format's object type numbers.
var packTypes = map[string]byte{"commit": 1, "tree": 2, "blob": 3}

// writeObjects writes objs with one git unpack-objects, from a pack built
// here: one process for any number of objects of any kind, and, as with
// hash-object --literally, no lookup of the objects they name (git mktree
// checks that every entry's object exists, which in a 10,000-task bucket
// is most of a claim, and fails outright when git gc moves an object
// meanwhile). Every id they name was read from git or is written here.
func writeObjects(g gitx.Git, objs []object, rawLen int) error {
	var pack bytes.Buffer
	pack.WriteString("PACK")
	_ = binary.Write(&pack, binary.BigEndian, [2]uint32{2, uint32(len(objs))})
	// Stored, not compressed: git compresses each object again as it
	// writes it loose, and a compressor costs more to set up than these
	// few small objects take to send.
	z, err := zlib.NewWriterLevel(&pack, zlib.NoCompression)
	if err != nil {
		return err
	}
	for _, o := range objs {
		// Type and size: four bits of size in the first byte, then seven
		// a byte, the high bit saying another byte follows.
		size := len(o.body)
		c := packTypes[o.kind]<<4 | byte(size&0x0f)
		for size >>= 4; size > 0; size >>= 7 {
			pack.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
		}
		pack.WriteByte(c)
		z.Reset(&pack)
		if _, err := z.Write(o.body); err != nil {
			return err
		}
		if err := z.Close(); err != nil {
			return err
		}
	}
	h := newHash(rawLen)
	h.Write(pack.Bytes())
	pack.Write(h.Sum(nil))
	_, err = g.RunInput(pack.Bytes(), "unpack-objects", "-q")
	return err
}

// encodeTree is git's binary tree format for ents, in git's order: names
// compared byte by byte, a folder's as if it ended in "/".
func encodeTree(ents map[string]treeEntry, rawLen int) ([]byte, error) {
	names := make([]string, 0, len(ents))
	for n := range ents {
		names = append(names, n)
	}
	key := func(n string) string {
		if m := ents[n].mode; m == "40000" || m == "040000" {
			return n + "/"
		}
		return n
	}
	sort.Slice(names, func(i, j int) bool { return key(names[i]) < key(names[j]) })
	var b bytes.Buffer
	for _, n := range names {
		e := ents[n]
		raw, err := hex.DecodeString(e.oid)
		if err != nil || len(raw) != rawLen {
			return nil, fmt.Errorf("tree entry %s: bad object id %q", n, e.oid)
		}
		mode := strings.TrimLeft(e.mode, "0")
		b.WriteString(mode)
		b.WriteByte(' ')
		b.WriteString(n)
		b.WriteByte(0)
		b.Write(raw)
	}
	return b.Bytes(), nil
}

// objectID is the id git gives an object of kind with body: SHA-1, or
// SHA-256 in a repository whose ids are 32 bytes.
func objectID(kind string, body []byte, rawLen int) string {
	h := newHash(rawLen)
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// newHash is the repository's hash: SHA-256 where ids are 32 bytes, else
// SHA-1.
func newHash(rawLen int) hash.Hash {
	if rawLen == sha256.Size {
		return sha256.New()
	}
	return sha1.New()
}
