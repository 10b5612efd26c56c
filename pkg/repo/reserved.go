package repo

import (
	"path/filepath"
	"strings"
)

// Reserved are burl's own paths in the main worktree, as git paths
// (slash-separated, from the root): the workflow worktree and the
// worktrees folder. A task's change never holds them (DESIGN §24):
// landing it would write task files, locks or another task's checkout.
func (r *Repo) Reserved() []string {
	var out []string
	for _, p := range []string{r.Worktree, r.WorktreesDir()} {
		if rel, err := filepath.Rel(r.Root, p); err == nil && rel != "." && !leavesDir(rel) {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// ReservedPath reports whether the git path p lies in one of reserved or
// in a .git folder, and which. Letter case is not told apart: on a
// case-insensitive file system (macOS, Windows) .GIT/ or .Burl/ is the
// same folder, and git itself refuses .git in any case.
func ReservedPath(reserved []string, p string) (string, bool) {
	lp := strings.ToLower(p)
	for _, r := range reserved {
		lr := strings.ToLower(r)
		if lp == lr || strings.HasPrefix(lp, lr+"/") {
			return r, true
		}
	}
	for _, part := range strings.Split(lp, "/") {
		if part == ".git" {
			return ".git", true
		}
	}
	return "", false
}
