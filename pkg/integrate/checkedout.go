package integrate

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/workspace"
)

// checkedOut is the worktree where main is checked out (nil: nowhere), as
// git worktree list tells it, read from the files git keeps it in: the
// main worktree's HEAD and each linked worktree's HEAD and gitdir under
// <common dir>/worktrees. Every approve asks, and a git process to read
// a few small files is most of what the question costs (DESIGN §28).
// Where the files may not say it all (reftable refs, a repository whose
// main worktree burl did not resolve), git is asked.
func (m Main) checkedOut() (*workspace.Worktree, error) {
	if m.Repo == nil || m.Repo.Root == "" || m.Repo.CommonDir == "" {
		return workspace.CheckedOutAt(m.Git, m.Branch)
	}
	common := m.Repo.CommonDir
	if _, err := os.Stat(filepath.Join(common, "reftable")); err == nil {
		return workspace.CheckedOutAt(m.Git, m.Branch)
	}
	want := "refs/heads/" + m.Branch
	on, ok := headOn(filepath.Join(common, "HEAD"))
	if !ok {
		return workspace.CheckedOutAt(m.Git, m.Branch)
	}
	if on == want {
		return &workspace.Worktree{Path: filepath.Clean(m.Repo.Root), Branch: m.Branch}, nil
	}
	admin := filepath.Join(common, "worktrees")
	ents, err := os.ReadDir(admin)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return workspace.CheckedOutAt(m.Git, m.Branch)
	}
	for _, e := range ents {
		dir := filepath.Join(admin, e.Name())
		on, ok := headOn(filepath.Join(dir, "HEAD"))
		if !ok {
			// Not a worktree's admin folder (or one half made): git's list
			// would not name it either, unless it holds what git reads.
			if _, err := os.Stat(filepath.Join(dir, "gitdir")); err == nil {
				return workspace.CheckedOutAt(m.Git, m.Branch)
			}
			continue
		}
		if on != want {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "gitdir"))
		if err != nil {
			return workspace.CheckedOutAt(m.Git, m.Branch)
		}
		p := strings.TrimSpace(string(b))
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return &workspace.Worktree{Path: filepath.Dir(filepath.Clean(p)), Branch: m.Branch}, nil
	}
	return nil, nil
}

// headOn reads a HEAD file: the ref it names ("" when it is detached);
// false when it is no HEAD git wrote.
func headOn(p string) (string, bool) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	s := strings.TrimSpace(string(b))
	if ref, ok := strings.CutPrefix(s, "ref: "); ok {
		return ref, true
	}
	if len(s) == 40 || len(s) == 64 {
		return "", strings.Trim(s, "0123456789abcdef") == ""
	}
	return "", false
}
