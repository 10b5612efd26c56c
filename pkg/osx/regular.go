package osx

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// regular keeps f when it is a regular file, else closes it.
func regular(f *os.File) (*os.File, error) {
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", f.Name())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadInside reads the regular file rel under dir as OpenInside opens it
// (no symlink followed on the way), refusing one over max bytes: what a
// run left in its out folder is read this way, never trusted for size.
func ReadInside(dir, rel string, max int64) ([]byte, error) {
	f, err := OpenInside(dir, rel, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, errors.New("too large")
	}
	return data, nil
}
