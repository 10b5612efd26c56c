// Package osx holds everything that differs between operating systems, each
// behind build tags, so the rest of burl is portable Go.
package osx

// FileKey identifies one version of a file. Size and mtime alone are not
// enough (an editor can rewrite a file in place with the same size in the
// same clock tick); ctime and inode change with every rewrite, rename and
// atomic replace.
type FileKey struct {
	Size, Mtime, Ctime int64
	Ino                uint64
}
