//go:build !unix

package workflow

import (
	"os"
	"path/filepath"
)

// statDir has size and mtime only where the OS offers no inode or ctime;
// the clock rule of Summaries still keeps the cache exact.
func statDir(dir string, names []string) []statKey {
	keys := make([]statKey, len(names))
	forChunks(len(names), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			st, err := os.Lstat(filepath.Join(dir, names[i]))
			if err != nil {
				keys[i].size = -1
				continue
			}
			keys[i] = statKey{size: st.Size(), mtime: st.ModTime().UnixNano()}
		}
	})
	return keys
}

// clockOf is the filesystem's timestamp of an open file.
func clockOf(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.ModTime().UnixNano(), nil
}
