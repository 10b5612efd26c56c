//go:build unix

package osx

import (
	"os"

	"golang.org/x/sys/unix"
)

// Exclusive takes an exclusive flock(2) on path (a file or a directory),
// waiting for it, and returns its release. The kernel drops it when its
// process dies, so no holder can leave it behind.
func Exclusive(path string) (release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
