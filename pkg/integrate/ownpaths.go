package integrate

import (
	"path/filepath"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/repo"
)

// intoOwnPaths refuses a fast-forward of the main worktree that would
// write into burl's own paths (DESIGN §24): there the workflow worktree
// and the task worktrees live, and a file landed into them would be a
// task nobody added or a change of another task's checkout. Only the
// repository's own checkout holds them.
func (m Main) intoOwnPaths(path, old, new string) error {
	if !samePath(path, m.Repo.Root) {
		return nil
	}
	// The trees compared through the process's cat-file, not a git diff
	// of its own (DESIGN §28).
	changed, err := gitobj.ChangedPaths(m.Git, old, new)
	if err != nil {
		return err
	}
	reserved := m.Repo.Reserved()
	for _, p := range changed {
		if r, ok := repo.ReservedPath(reserved, p); ok && p != "" {
			return errs.New(errs.Validation, "%s at %s writes %s, in burl's own path %s/, which never lands", m.Branch, gitx.Short(new), p, r).
				WithFix("remove it from the commits that hold it (git rm -r --cached -- %s, commit), then run the command again", p)
		}
	}
	return nil
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	x, err1 := filepath.EvalSymlinks(a)
	y, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && x == y
}
