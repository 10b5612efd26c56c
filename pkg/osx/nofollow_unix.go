//go:build unix

package osx

import (
	"io"
	"os"
	"syscall"
)

// ReadFileNoFollow reads path, refusing (ELOOP) when its last component is
// a symbolic link: files under .workflow/ come from a shared branch, and a
// link there could make burl read or write outside the repository.
func ReadFileNoFollow(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// OpenRegular opens path for reading only when it is a regular file, not
// through a symbolic link and never waiting on a FIFO: a file a sandboxed
// run wrote, which burl reads after it.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	return regular(f)
}
