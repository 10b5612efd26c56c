//go:build unix

package workflow

import (
	"os"

	"golang.org/x/sys/unix"
)

// statDir stats names in dir: fstatat relative to the directory, so the
// kernel resolves one name rather than a whole path, and without the
// allocations of os.Lstat: status calls it once per task file. A name
// that cannot be stat'ed gets size -1, which no cache entry matches.
func statDir(dir string, names []string) []statKey {
	keys := make([]statKey, len(names))
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		for i := range keys {
			keys[i].size = -1
		}
		return keys
	}
	defer unix.Close(fd)
	forChunks(len(names), func(lo, hi int) {
		var st unix.Stat_t
		for i := lo; i < hi; i++ {
			if err := unix.Fstatat(fd, names[i], &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				keys[i].size = -1
				continue
			}
			keys[i] = statKey{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino}
		}
	})
	return keys
}

// clockOf is the filesystem's timestamp of an open file.
func clockOf(f *os.File) (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return 0, err
	}
	return max(st.Mtim.Nano(), st.Ctim.Nano()), nil
}
