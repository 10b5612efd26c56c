package osx

import (
	"fmt"
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
