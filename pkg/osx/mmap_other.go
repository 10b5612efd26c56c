//go:build !unix

package osx

import "os"

// ReadOnlyMap maps nothing where the OS has no mmap: the caller reads.
func ReadOnlyMap(f *os.File, off, n int64) (b []byte, ok bool) { return nil, false }

// MappedString is never called where ReadOnlyMap maps nothing.
func MappedString(b []byte) string { return string(b) }
