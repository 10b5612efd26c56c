//go:build unix

package repo

import (
	"os"
	"syscall"
)

func devOf(p string) (uint64, bool) {
	st, err := os.Stat(p)
	if err != nil {
		return 0, false
	}
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(s.Dev), true
}

// ownedByMe: git refuses a repository another user owns (safe.directory);
// burl then lets git say so.
func ownedByMe(p string) bool {
	st, err := os.Stat(p)
	if err != nil {
		return false
	}
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == os.Geteuid()
}
