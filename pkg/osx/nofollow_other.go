//go:build !unix

package osx

import (
	"fmt"
	"os"
)

// ReadFileNoFollow reads path unless it is a symbolic link.
func ReadFileNoFollow(path string) ([]byte, error) {
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link", path)
	}
	return os.ReadFile(path)
}

// OpenRegular opens path for reading only when it is a regular file, not
// a symbolic link.
func OpenRegular(path string) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return regular(f)
}
