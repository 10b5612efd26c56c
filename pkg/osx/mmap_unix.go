//go:build unix

package osx

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ReadOnlyMap is n bytes of f from off, mapped read-only rather than read
// into the heap: the garbage collector neither counts nor scans them, and
// the pages are the page cache's own. The mapping lasts as long as the
// process (for a one-shot command; see workflow.SummariesLazy). ok is
// false when it cannot be mapped; the caller reads instead.
func ReadOnlyMap(f *os.File, off, n int64) (b []byte, ok bool) {
	page := int64(os.Getpagesize())
	start := off / page * page
	m, err := unix.Mmap(int(f.Fd()), start, int(off-start+n), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, false
	}
	return m[off-start:], true
}

// MappedString is b as a string without a copy, for b from ReadOnlyMap:
// its bytes never change and are never unmapped, so the string is as
// immutable as any other.
func MappedString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
