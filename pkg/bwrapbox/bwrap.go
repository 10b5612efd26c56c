package bwrapbox

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

var (
	bwrapOnce sync.Once
	bwrapBin  string
	bwrapErr  error
)

// BwrapProgram is bubblewrap's absolute path, looked up on PATH once, at
// the first call (watch makes it at start, before any run): a run that
// writes a program named bwrap somewhere is never the next run's
// sandbox (DESIGN §24).
func BwrapProgram() (string, error) {
	bwrapOnce.Do(func() {
		bin, err := exec.LookPath("bwrap")
		if err != nil {
			bwrapErr = errors.New("bwrap is not installed (Debian: apt-get install bubblewrap)")
			return
		}
		if bwrapBin, err = filepath.Abs(bin); err != nil {
			bwrapErr = err
		}
	})
	return bwrapBin, bwrapErr
}

// Within reports whether p is dir or lies under it, by name.
func Within(p, dir string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}
