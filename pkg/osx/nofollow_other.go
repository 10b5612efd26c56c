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
