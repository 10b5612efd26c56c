package repo

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/fsx"
)

// Exclude adds the lines git does not have yet to the repository's
// info/exclude (shared by every worktree), under a "# burl: why" comment:
// paths burl puts into worktrees must never be committed by a worker's
// `git add -A`.
func (r *Repo) Exclude(why string, lines ...string) error {
	p := filepath.Join(r.CommonDir, "info", "exclude")
	data, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var add []string
	for _, l := range lines {
		if !have[l] {
			add = append(add, l)
			have[l] = true
		}
	}
	if len(add) == 0 {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		data = append(data, '\n')
	}
	data = append(data, []byte("# burl: "+why+"\n"+strings.Join(add, "\n")+"\n")...)
	return fsx.WriteFile(p, data)
}
