//go:build !unix

package osx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// OpenInside opens rel below dir, refusing a symbolic link at any step
// and anything but a regular file (or, with wantDir, a directory). See
// the Unix version; here each step is checked before it is opened.
func OpenInside(dir, rel string, wantDir bool) (*os.File, error) {
	p := dir
	steps := []string{p}
	if rel != "" && rel != "." {
		for _, c := range strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/") {
			if c == ".." || c == "" {
				return nil, fmt.Errorf("%s: %q leaves the directory", dir, rel)
			}
			p = filepath.Join(p, c)
			steps = append(steps, p)
		}
	}
	for _, s := range steps {
		st, err := os.Lstat(s)
		if err != nil {
			return nil, err
		}
		if st.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0 {
			return nil, fmt.Errorf("%s is a link", s)
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil || wantDir && !st.IsDir() || !wantDir && !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not what it should be", p)
	}
	return f, nil
}

// CanRename: there is no sandbox to protect here.
func CanRename(dir string) bool { return false }
