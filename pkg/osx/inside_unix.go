//go:build unix

package osx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// OpenInside opens rel below dir for reading without following a symbolic
// link at any step, dir included, and without blocking (a FIFO planted
// where a file should be opens at once, and is refused). It returns a
// regular file, or with wantDir a directory; anything else is an error.
// What it reads was written by an agent: nothing there may redirect burl
// or make it wait.
func OpenInside(dir, rel string, wantDir bool) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/")
	if rel == "" || rel == "." {
		parts = nil
	}
	for i, p := range parts {
		if p == ".." || p == "" {
			unix.Close(fd)
			return nil, fmt.Errorf("%s: %q leaves the directory", dir, rel)
		}
		flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK
		if i < len(parts)-1 || wantDir {
			flags |= unix.O_DIRECTORY
		}
		next, err := unix.Openat(fd, p, flags, 0)
		unix.Close(fd)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: filepath.Join(dir, rel), Err: err}
		}
		fd = next
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, rel))
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if wantDir && !st.IsDir() || !wantDir && !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular %s (%s)", f.Name(), map[bool]string{true: "directory", false: "file"}[wantDir], st.Mode().Type())
	}
	return f, nil
}

// CanRename reports whether this user could rename dir: its parent is
// writable to it.
func CanRename(dir string) bool {
	return unix.Access(filepath.Dir(dir), unix.W_OK) == nil
}
