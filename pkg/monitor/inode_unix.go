//go:build unix

package monitor

import (
	"os"
	"syscall"
)

// inode tells a file replaced by rename from one rewritten in place within
// the same mtime tick.
func inode(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
