package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/osx"
)

// MaxRunObjects bounds the bytes of objects one run may hand back: past
// it the run's work is refused rather than copied.
const MaxRunObjects int64 = 4 << 30

// copyObjects copies the objects a run wrote into its object store src
// into dst, burl's quarantine: loose objects (xx/<hex>) and packs
// (pack/pack-<hex>.pack; their indexes are rebuilt, never trusted), as
// regular files only, each opened without following a link or waiting on
// a FIFO. Any other name is left behind. It returns the packs copied.
func copyObjects(src, dst string, hexLen int) (packs []string, err error) {
	ents, err := readDirInside(src, ".")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	budget := MaxRunObjects
	copyOne := func(rel string) error {
		in, err := osx.OpenInside(src, rel, false)
		if err != nil {
			return err
		}
		defer in.Close()
		st, err := in.Stat()
		if err != nil {
			return err
		}
		if budget -= st.Size(); budget < 0 {
			return fmt.Errorf("the run wrote more than %d bytes of objects", MaxRunObjects)
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if err != nil {
			return err
		}
		n, err := io.Copy(out, io.LimitReader(in, st.Size()))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err == nil && n != st.Size() {
			err = fmt.Errorf("%s changed while it was copied", rel)
		}
		return err
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.IsDir() && len(name) == 2 && isHex(name):
			objs, err := readDirInside(src, name)
			if err != nil {
				return nil, err
			}
			for _, o := range objs {
				if len(o.Name()) == hexLen-2 && isHex(o.Name()) {
					if err := copyOne(filepath.Join(name, o.Name())); err != nil {
						return nil, err
					}
				}
			}
		case e.IsDir() && name == "pack":
			files, err := readDirInside(src, name)
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				h, ok := strings.CutPrefix(f.Name(), "pack-")
				if h, ok = strings.CutSuffix(h, ".pack"); ok && len(h) == hexLen && isHex(h) {
					rel := filepath.Join("pack", f.Name())
					if err := copyOne(rel); err != nil {
						return nil, err
					}
					packs = append(packs, filepath.Join(dst, rel))
				}
			}
		}
	}
	return packs, nil
}

// readDirInside lists the directory rel below dir, reached without
// following a link.
func readDirInside(dir, rel string) ([]os.DirEntry, error) {
	d, err := osx.OpenInside(dir, rel, true)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return s != ""
}
