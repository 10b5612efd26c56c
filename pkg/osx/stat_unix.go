//go:build unix

package osx

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// StatNames stats names in dir: fstatat relative to the directory, so the
// kernel resolves one name rather than a whole path, and without the
// allocations of os.Lstat. A name that cannot be stat'ed gets Size -1,
// which no recorded key matches. each splits the work (e.g. across cores):
// it must call f over disjoint ranges covering [0, len(names)).
func StatNames(dir string, names []string, each func(n int, f func(lo, hi int))) []FileKey {
	keys := make([]FileKey, len(names))
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		for i := range keys {
			keys[i].Size = -1
		}
		return keys
	}
	defer unix.Close(fd)
	each(len(names), func(lo, hi int) {
		var st unix.Stat_t
		for i := lo; i < hi; i++ {
			if err := unix.Fstatat(fd, names[i], &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				keys[i].Size = -1
				continue
			}
			keys[i] = FileKey{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino}
		}
	})
	return keys
}

// FileClock is the filesystem's timestamp of an open file.
func FileClock(f *os.File) (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return 0, err
	}
	return max(st.Mtim.Nano(), st.Ctim.Nano()), nil
}

// Inode is the inode number of a file's FileInfo (0 where unknown).
func Inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
