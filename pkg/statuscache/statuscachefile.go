package statuscache

// The status cache's file: how summaries are written, read back and
// looked up (Summaries in statuscache.go decides when).

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
)

func newCacheTemp(dir string) (*os.File, int64, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	f, err := os.CreateTemp(dir, "."+StatusCacheName+"-*")
	if err != nil {
		return nil, 0, err
	}
	clock, err := osx.FileClock(f)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, 0, err
	}
	return f, clock, nil
}

// writeStatusCache writes the cache file: magic; the length of the index
// (8 bytes); the index (the workflow directory, then per task: bucket,
// file name, stat key, the summary strings, and where its fields sit in
// the blob); a CRC-32 of the index; the blob of fields JSON; a CRC-32 of
// the blob. Status without --json reads the index alone. The blob is
// streamed from the summaries rather than assembled: at 10,000 tasks it
// is most of the file.
func writeStatusCache(f io.Writer, dir string, out []Summary, keys []statKey, keep func(int) bool) error {
	idx := putString(nil, dir)
	var off uint64
	for i := range out {
		if !keep(i) {
			continue
		}
		s, k := &out[i], keys[i]
		idx = putString(idx, string(s.Bucket))
		idx = putString(idx, inBucketDir(filepath.Join(dir, string(s.Bucket)), s.Path))
		idx = binary.AppendVarint(idx, k.Size)
		idx = binary.AppendVarint(idx, k.Mtime)
		idx = binary.AppendVarint(idx, k.Ctime)
		idx = binary.AppendUvarint(idx, k.Ino)
		for _, v := range s.cacheStrings() {
			idx = putString(idx, v)
		}
		idx = binary.AppendUvarint(idx, off)
		idx = binary.AppendUvarint(idx, uint64(len(s.Fields)))
		off += uint64(len(s.Fields))
	}
	w := bufio.NewWriterSize(f, 256<<10)
	w.WriteString(statusCacheMagic)
	w.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(idx))))
	w.Write(idx)
	w.Write(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(idx)))
	var crc uint32
	for i := range out {
		if keep(i) {
			w.Write(out[i].Fields)
			crc = crc32.Update(crc, crc32.IEEETable, out[i].Fields)
		}
	}
	w.Write(binary.LittleEndian.AppendUint32(nil, crc))
	return w.Flush()
}

func putString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errCorrupt = errors.New("corrupt status cache")

// cacheReader decodes the cache index, held as one string so that every
// value read from it is a substring: no allocation per task and field.
// The first inconsistency makes it corrupt.
type cacheReader struct {
	data string
	err  error
}

func (r *cacheReader) uvarint() uint64 {
	var v uint64
	for i := 0; i < len(r.data) && i < binary.MaxVarintLen64; i++ {
		c := r.data[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			r.data = r.data[i+1:]
			return v
		}
	}
	r.err, r.data = errCorrupt, ""
	return 0
}

func (r *cacheReader) varint() int64 {
	u := r.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

func (r *cacheReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.data)) {
		r.err, r.data = errCorrupt, ""
		return ""
	}
	v := r.data[:n]
	r.data = r.data[n:]
	return v
}

// summaryStrings is how many strings one cache entry holds: what
// cacheStrings writes, summaryFromCache reads and skipEntry passes over.
const summaryStrings = 24

// cacheStrings are a summary's strings as a cache entry holds them, in
// order (lists joined: task IDs never hold a comma, paths never a NUL).
func (s Summary) cacheStrings() [summaryStrings]string {
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return ""
	}
	return [summaryStrings]string{s.ID, s.Title, s.Priority, s.Created, s.AssignedTo, s.Branch, s.StartedAt,
		strings.Join(s.DependsOn, ","), strings.Join(s.Affects, "\x00"), strings.Join(s.AffectsGlobs, "\x00"),
		strings.Join(s.MustNotTouch, "\x00"), s.BaseSHA, flag(s.GateFailed), s.ScopeRequest, s.BlockedReason, s.PRNumber, s.PRURL,
		s.Held, s.Resolution, s.LeaseHolder, s.LeaseExpires, s.OverBudget, flag(s.HasUsage), flag(s.Reviewed)}
}

// summaryFromCache is cacheStrings read back.
func summaryFromCache(v [summaryStrings]string) Summary {
	s := Summary{ID: v[0], Title: v[1], Priority: v[2], Created: v[3], AssignedTo: v[4], Branch: v[5], StartedAt: v[6],
		BaseSHA: v[11], GateFailed: v[12] == "1", ScopeRequest: v[13], BlockedReason: v[14], PRNumber: v[15], PRURL: v[16],
		Held: v[17], Resolution: v[18], LeaseHolder: v[19], LeaseExpires: v[20], OverBudget: v[21], HasUsage: v[22] == "1", Reviewed: v[23] == "1"}
	if v[7] != "" {
		s.DependsOn = strings.Split(v[7], ",")
	}
	for i, l := range []*[]string{&s.Affects, &s.AffectsGlobs, &s.MustNotTouch} {
		if v[8+i] != "" {
			*l = strings.Split(v[8+i], "\x00")
		}
	}
	return s
}

// skipEntry passes over an entry's key and summary strings, leaving the
// reader at the fields offset and length.
func (r *cacheReader) skipEntry() {
	r.varint()
	r.varint()
	r.varint()
	r.uvarint()
	for range summaryStrings {
		r.str()
	}
}

// statusCache is an opened cache file: its index is read and checked up
// front; the blob of fields only on demand.
type statusCache struct {
	f   *os.File
	idx string
	// Entries are looked up in the order they were written, which is the
	// order the folders list them in while they do not change: next is
	// the offset of the entry the next lookup expects, seq how many came
	// in that order. Only a lookup out of that order builds at, which
	// over 10,000 tasks cost as much as the rest of reading the cache.
	next, seq int
	at        map[entryKey]int // file → its entry's offset in idx
	n         int              // entries (once at is built)
	blob      []byte
	loaded    bool // blob read and checked
	// file is the whole file, mapped (lazy); never unmapped.
	file []byte
	// lazy: summaries record where their fields are (SummariesLazy).
	lazy bool
}

// openStatusCache returns an empty cache when there is no usable one for
// the workflow at dir. A lazy cache (SummariesLazy) is mapped whole.
func openStatusCache(path, dir string, lazy bool) *statusCache {
	c := &statusCache{lazy: lazy}
	f, err := os.Open(path)
	if err != nil {
		return c
	}
	head := make([]byte, len(statusCacheMagic)+8)
	if _, err := f.ReadAt(head, 0); err != nil || string(head[:len(statusCacheMagic)]) != statusCacheMagic {
		f.Close()
		return c
	}
	n := binary.LittleEndian.Uint64(head[len(statusCacheMagic):])
	st, err := f.Stat()
	if err != nil || n > uint64(st.Size()) {
		f.Close()
		return c
	}
	if m, ok := mapWhole(f, st.Size(), lazy); ok {
		all, ok := mappedIndex(m, int64(len(head)), int64(n))
		if !ok {
			f.Close()
			return c
		}
		c.file = m
		return c.opened(f, all, dir)
	}
	// Read straight into the string the index is kept as: one copy of
	// it, not two.
	var idx strings.Builder
	idx.Grow(int(n))
	crc := crc32.NewIEEE()
	var sum [4]byte
	if _, err := io.CopyN(&idx, io.TeeReader(io.NewSectionReader(f, int64(len(head)), int64(n)), crc), int64(n)); err != nil {
		f.Close()
		return c
	}
	if _, err := f.ReadAt(sum[:], int64(len(head))+int64(n)); err != nil || crc.Sum32() != binary.LittleEndian.Uint32(sum[:]) {
		f.Close()
		return c
	}
	return c.opened(f, idx.String(), dir)
}

// mapWhole maps the file f of size bytes when lazy: the index and the
// fields are then strings and slices of the page cache's pages, not
// copies on the heap.
func mapWhole(f *os.File, size int64, lazy bool) ([]byte, bool) {
	if !lazy || size == 0 {
		return nil, false
	}
	return osx.ReadOnlyMap(f, 0, size)
}

// mappedIndex is the index of the mapped file m, n bytes at off, when its
// checksum holds.
func mappedIndex(m []byte, off, n int64) (string, bool) {
	if n == 0 || off+n+4 > int64(len(m)) {
		return "", false
	}
	idx := m[off : off+n]
	if crc32.ChecksumIEEE(idx) != binary.LittleEndian.Uint32(m[off+n:]) {
		return "", false
	}
	return osx.MappedString(idx), true
}

// opened is c with the index all of the file f, when it is the cache of
// the workflow at dir.
func (c *statusCache) opened(f *os.File, all, dir string) *statusCache {
	r := &cacheReader{data: all}
	if r.str() != dir {
		f.Close()
		return &statusCache{}
	}
	c.f, c.idx, c.next = f, all, len(all)-len(r.data)
	return c
}

// index builds at from the whole index. An entry that cannot be decoded
// leaves the cache empty: nothing more is served from it.
func (c *statusCache) index() {
	at := map[entryKey]int{}
	r := &cacheReader{data: c.idx}
	r.str()
	n := 0
	for len(r.data) > 0 && r.err == nil {
		b := bucket.Bucket(r.str())
		name := r.str()
		at[keyOf(b, name)] = len(c.idx) - len(r.data)
		r.skipEntry()
		r.uvarint()
		r.uvarint()
		n++
	}
	if r.err != nil {
		at, n = map[entryKey]int{}, 0
	}
	c.at, c.n = at, n
}

// count is how many entries the cache holds.
func (c *statusCache) count() int {
	if c.at == nil {
		if c.next == len(c.idx) {
			return c.seq
		}
		c.index()
	}
	return c.n
}

// entryKey is where a task file sits: bucket, the folder within it ("" or
// a DONE shard's "2026-11/"), and its name. Lookups make no string.
type entryKey struct {
	b         bucket.Bucket
	dir, name string
}

// keyOf is the entryKey of a path within bucket b ("2026-11/<name>").
func keyOf(b bucket.Bucket, inBucket string) entryKey {
	i := strings.LastIndexByte(inBucket, '/') + 1
	return entryKey{b, inBucket[:i], inBucket[i:]}
}

// lookup returns the cached summary of the file at key when its stat key
// is k.
func (c *statusCache) lookup(key entryKey, k statKey) (Summary, bool) {
	off, ok := c.nextAt(key)
	if !ok {
		if c.at == nil {
			// Other names (a month shard, a stray file) are never
			// cached: they leave the order as it is.
			if _, isTask := task.IDFromFileName(key.name); !isTask {
				return Summary{}, false
			}
			c.index()
		}
		if off, ok = c.at[key]; !ok {
			return Summary{}, false
		}
	}
	r := &cacheReader{data: c.idx[off:]}
	if (statKey{Size: r.varint(), Mtime: r.varint(), Ctime: r.varint(), Ino: r.uvarint()}) != k {
		return Summary{}, false
	}
	var v [summaryStrings]string
	for i := range v {
		v[i] = r.str()
	}
	s := summaryFromCache(v)
	fo, fn := r.uvarint(), r.uvarint()
	if c.loaded {
		s.Fields = c.fields(fo, fn)
	} else if c.lazy && fo+fn <= math.MaxUint32 {
		s.from, s.off, s.n = c, uint32(fo), uint32(fn)
	}
	return s, r.err == nil
}

// nextAt is the offset of key's entry (past its bucket and name) when it
// is the one expected next, in the order the entries were written.
func (c *statusCache) nextAt(key entryKey) (int, bool) {
	if c.at != nil || c.next == len(c.idx) {
		return 0, false
	}
	r := &cacheReader{data: c.idx[c.next:]}
	b, name := r.str(), r.str()
	if r.err != nil || bucket.Bucket(b) != key.b || len(name) != len(key.dir)+len(key.name) ||
		!strings.HasPrefix(name, key.dir) || !strings.HasSuffix(name, key.name) {
		return 0, false
	}
	off := len(c.idx) - len(r.data)
	r.skipEntry()
	r.uvarint()
	r.uvarint()
	if r.err != nil {
		return 0, false
	}
	c.next, c.seq = len(c.idx)-len(r.data), c.seq+1
	return off, true
}

// fieldsOf returns the cached fields of the file at key (after loadFields).
func (c *statusCache) fieldsOf(key entryKey) json.RawMessage {
	if c.at == nil {
		c.index()
	}
	off, ok := c.at[key]
	if !ok {
		return nil
	}
	r := &cacheReader{data: c.idx[off:]}
	r.skipEntry()
	return c.fields(r.uvarint(), r.uvarint())
}

func (c *statusCache) fields(off, n uint64) json.RawMessage {
	if off+n > uint64(len(c.blob)) || off+n < off {
		return nil
	}
	// Aliases the blob, which is never modified.
	return c.blob[off : off+n : off+n]
}

// loadFields reads and checks the blob; false when it is unusable.
func (c *statusCache) loadFields() bool {
	if c.loaded || c.f == nil {
		return c.loaded
	}
	st, err := c.f.Stat()
	start := int64(len(statusCacheMagic) + 8 + len(c.idx) + 4)
	if err != nil || st.Size() < start+4 {
		return false
	}
	// Lazily (status --json) the blob is mapped, never freed: off the
	// heap, it does not bring the GC up against the soft memory limit.
	blob, mapped := []byte(nil), false
	if c.file != nil {
		blob, mapped = c.file[start:], true
	} else if c.lazy {
		blob, mapped = osx.ReadOnlyMap(c.f, start, st.Size()-start)
	}
	if !mapped {
		blob = make([]byte, st.Size()-start)
		if _, err := c.f.ReadAt(blob, start); err != nil {
			return false
		}
	}
	n := len(blob) - 4
	if crc32.ChecksumIEEE(blob[:n]) != binary.LittleEndian.Uint32(blob[n:]) {
		return false
	}
	c.blob, c.loaded = blob[:n], true
	// Index and blob are in memory now: nothing more is read.
	c.close()
	return true
}

func (c *statusCache) close() {
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
}
