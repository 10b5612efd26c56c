// Package fsx is how burl changes files: atomic replace (temp file + rename)
// and atomic moves between bucket directories, with the PRD's copy+delete
// fallback when a rename crosses filesystems.
package fsx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/natefinch/atomic"

	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/osx"
)

// WriteFile replaces path atomically: readers see the old or the new
// content, never a mix, even if we crash mid-write.
func WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	_, statErr := os.Lstat(path)
	if err := atomic.WriteFile(path, bytes.NewReader(data)); err != nil {
		return err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// atomic.WriteFile keeps an existing file's mode but leaves a new
		// one with its temp file's 0600; give it what os.Create would.
		return os.Chmod(path, newFileMode(filepath.Dir(path)))
	}
	return nil
}

var (
	modeOnce sync.Once
	fileMode fs.FileMode = 0o644
)

// newFileMode is 0666 minus the process umask. Go cannot read the umask
// without changing it (racy in a threaded process), so a probe file
// created once shows what the kernel applies.
func newFileMode(dir string) fs.FileMode {
	modeOnce.Do(func() {
		f, err := os.CreateTemp(dir, ".burl-mode-*")
		if err != nil {
			return
		}
		name := f.Name()
		f.Close()
		_ = os.Remove(name)
		// CreateTemp uses 0600; redo with 0666 under the umask.
		g, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			return
		}
		if st, err := g.Stat(); err == nil {
			fileMode = st.Mode().Perm()
		}
		g.Close()
		_ = os.Remove(name)
	})
	return fileMode
}

// Degraded is returned (with a nil-equivalent outcome: the file did move)
// when a move had to fall back to copy+delete. Callers warn and go on.
type Degraded struct{ Src, Dst string }

func (d *Degraded) Error() string {
	return fmt.Sprintf("moved %s to %s by copy+delete (different filesystems): not atomic; if burl was interrupted, run git burl doctor", d.Src, d.Dst)
}

// Move renames src to dst, refusing to overwrite an existing dst. When the
// rename crosses devices it copies, syncs, then deletes src and returns a
// *Degraded describing that.
func Move(src, dst string) error {
	if err := faults.Fail("rename"); err != nil {
		return &os.LinkError{Op: "rename", Old: src, New: dst, Err: err}
	}
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("cannot move %s: %s already exists", src, dst)
	}
	err := os.Rename(src, dst)
	if err == nil && !faults.ForceEXDEV {
		return nil
	}
	if faults.ForceEXDEV && err == nil {
		// Undo the rename so the fallback below really copies and deletes.
		if err := os.Rename(dst, src); err != nil {
			return err
		}
	} else if !osx.IsCrossDevice(err) {
		return err
	}
	if err := copyFile(src, dst); err != nil {
		_ = os.Remove(dst)
		return err
	}
	faults.CrashPoint("move", "copied")
	if err := os.Remove(src); err != nil {
		return err
	}
	return &Degraded{Src: src, Dst: dst}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// IsTemp recognises the temp files burl's writes leave when a process is
// killed mid-write: WriteFile's replace writes "<name><digits>" beside the
// file (natefinch/atomic's os.CreateTemp pattern) and renames it over the
// file, and the mode probe writes ".burl-mode-<digits>". Such a file was
// never renamed into place, so the file it was meant to replace is still
// the truth and the temp file can go.
func IsTemp(name string) bool {
	if rest, ok := strings.CutPrefix(name, ".burl-mode-"); ok {
		return allDigits(rest)
	}
	for _, ext := range []string{".md", ".ndjson", ".yaml"} {
		if i := strings.LastIndex(name, ext); i > 0 && allDigits(name[i+len(ext):]) {
			return true
		}
	}
	return false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
