//go:build !unix

package osx

import (
	"os"
	"path/filepath"
)

// StatNames has size and mtime only where the OS offers no inode or ctime.
func StatNames(dir string, names []string, each func(n int, f func(lo, hi int))) []FileKey {
	keys := make([]FileKey, len(names))
	each(len(names), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			st, err := os.Lstat(filepath.Join(dir, names[i]))
			if err != nil {
				keys[i].Size = -1
				continue
			}
			keys[i] = FileKey{Size: st.Size(), Mtime: st.ModTime().UnixNano()}
		}
	})
	return keys
}

// FileClock is the filesystem's timestamp of an open file.
func FileClock(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.ModTime().UnixNano(), nil
}

// Inode is unknown here.
func Inode(st os.FileInfo) uint64 { return 0 }
