// Package gitobj builds git objects in Go and writes and reads them with
// one git process for many: the workflow's commits and the landing
// records' notes (DESIGN §13, §22) are computed here, so what a command
// costs does not grow with the number of objects it touches.
package gitobj

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
)

// Entry is one entry of a git tree: its mode as git writes it ("100644",
// "40000") and its object id.
type Entry struct{ Mode, OID string }

// Dir reports whether the entry is a folder.
func (e Entry) Dir() bool { return e.Mode == "40000" || e.Mode == "040000" }

// Object is an object to write: its kind ("blob", "tree", "commit"), the
// id computed here, and its content.
type Object struct {
	Kind, OID string
	Body      []byte
}

// New is the object of kind with body, its id computed.
func New(kind string, body []byte, rawLen int) Object {
	return Object{kind, ID(kind, body, rawLen), body}
}

// CatBatch reads the objects names (as "HEAD:path") and hands each to
// each in order: its id, its type ("missing" when there is none) and its
// content. They are asked of the process's one git cat-file (gitx.Cat),
// all at once, git buffering its answers: one write per pipe's worth
// instead of one per object, which for thousands of small objects is most
// of the cost.
func CatBatch(g gitx.Git, names []string, each func(i int, oid, kind string, body []byte) error) error {
	return g.Cat(names, true, each)
}

// Reader reads objects of one repository as they are asked for: a reader
// of trees asks for a folder once it has read its parent.
type Reader struct{ g gitx.Git }

// NewReader is a Reader of g's repository, through the process's one git
// cat-file (gitx.Cat).
func NewReader(g gitx.Git) *Reader { return &Reader{g} }

// Read is one object: its id, its type ("missing" when there is none)
// and its content.
func (rd *Reader) Read(name string) (oid, kind string, body []byte, err error) {
	return rd.g.Object(name)
}

// Batch asks for every name at once and hands each answer to each, in
// order (see CatBatch).
func (rd *Reader) Batch(names []string, each func(i int, oid, kind string, body []byte) error) error {
	return rd.g.Cat(names, true, each)
}

// ParseTree reads git's binary tree format: "mode name\0" and the raw
// object id of rawLen bytes, per entry.
func ParseTree(b []byte, rawLen int) (map[string]Entry, error) {
	ents := map[string]Entry{}
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		nul := bytes.IndexByte(b, 0)
		if sp < 0 || nul < sp || len(b) < nul+1+rawLen {
			return nil, fmt.Errorf("malformed tree entry")
		}
		ents[string(b[sp+1:nul])] = Entry{string(b[:sp]), hex.EncodeToString(b[nul+1 : nul+1+rawLen])}
		b = b[nul+1+rawLen:]
	}
	return ents, nil
}

// EncodeTree is git's binary tree format for ents, in git's order: names
// compared byte by byte, a folder's as if it ended in "/".
func EncodeTree(ents map[string]Entry, rawLen int) ([]byte, error) {
	names := make([]string, 0, len(ents))
	for n := range ents {
		names = append(names, n)
	}
	key := func(n string) string {
		if ents[n].Dir() {
			return n + "/"
		}
		return n
	}
	sort.Slice(names, func(i, j int) bool { return key(names[i]) < key(names[j]) })
	var b bytes.Buffer
	for _, n := range names {
		e := ents[n]
		raw, err := hex.DecodeString(e.OID)
		if err != nil || len(raw) != rawLen {
			return nil, fmt.Errorf("tree entry %s: bad object id %q", n, e.OID)
		}
		b.WriteString(strings.TrimLeft(e.Mode, "0"))
		b.WriteByte(' ')
		b.WriteString(n)
		b.WriteByte(0)
		b.Write(raw)
	}
	return b.Bytes(), nil
}

// ID is the id git gives an object of kind with body: SHA-1, or SHA-256
// in a repository whose ids are 32 bytes.
func ID(kind string, body []byte, rawLen int) string {
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

// packTypes are the pack format's object type numbers.
var packTypes = map[string]byte{"commit": 1, "tree": 2, "blob": 3}

// Write writes objs with one git unpack-objects, from a pack built here:
// one process for any number of objects of any kind, and, as with
// hash-object --literally, no lookup of the objects they name (git mktree
// checks that every entry's object exists, which in a 10,000-task bucket
// is most of a claim, and fails outright when git gc moves an object
// meanwhile). Every id they name was read from git or is written here.
func Write(g gitx.Git, objs []Object, rawLen int) error {
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
		size := len(o.Body)
		c := packTypes[o.Kind]<<4 | byte(size&0x0f)
		for size >>= 4; size > 0; size >>= 7 {
			pack.WriteByte(c | 0x80)
			c = byte(size & 0x7f)
		}
		pack.WriteByte(c)
		z.Reset(&pack)
		if _, err := z.Write(o.Body); err != nil {
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
