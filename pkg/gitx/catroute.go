package gitx

import (
	"os"
	"path/filepath"
	"strings"
)

// A repository's worktrees share one cat-file (DESIGN §28): burl reads the
// workflow worktree, the main worktree and a task's worktree in one
// process, and each was a git of its own. The shared git runs in the main
// worktree; a linked worktree's HEAD is asked for there by git's name for
// it, worktrees/<id>/HEAD. A name whose meaning depends on the worktree in
// other ways (the index, a pseudo-ref, @{...}, a path relative to the
// current folder) is asked of the worktree's own cat-file, as before.

// catRoute is the runner whose cat-file answers g's names and the names as
// that runner must ask them; ok is false when g keeps its own.
func (g Git) catRoute(names []string) (Git, []string, bool) {
	if len(g.Env) > 0 || g.Dir == "" || !g.OwnRepo && os.Getenv("GIT_DIR") != "" {
		return g, names, false
	}
	main, id, ok := worktreeOf(g.Dir)
	if !ok {
		return g, names, false
	}
	out := make([]string, len(names))
	for i, n := range names {
		shared, ok := sharedName(n, id)
		if !ok {
			return g, names, false
		}
		out[i] = shared
	}
	s := g
	s.Dir = main
	// Dropping an inherited repository changes nothing where there is
	// none: such a runner shares the cat-file of one that keeps it.
	s.OwnRepo = s.OwnRepo && len(withoutRepoEnv(os.Environ())) != len(os.Environ())
	return s, out, true
}

// worktreeOf is the main worktree of the repository whose worktree root is
// dir, and dir's id among its linked worktrees ("" for the main worktree
// itself); ok is false for anything else (a subfolder, a bare or a
// separate git dir, a task's run with a git dir of its own).
func worktreeOf(dir string) (main, id string, ok bool) {
	dot := filepath.Join(dir, ".git")
	st, err := os.Lstat(dot)
	if err != nil {
		return "", "", false
	}
	if st.IsDir() {
		return dir, "", true
	}
	if !st.Mode().IsRegular() {
		return "", "", false
	}
	b, err := os.ReadFile(dot)
	if err != nil {
		return "", "", false
	}
	gd, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok || !filepath.IsAbs(gd) {
		return "", "", false
	}
	gd = filepath.Clean(gd)
	wts, id := filepath.Split(gd)
	common := filepath.Dir(filepath.Clean(wts))
	if filepath.Base(filepath.Clean(wts)) != "worktrees" || filepath.Base(common) != ".git" || id == "" {
		return "", "", false
	}
	// The worktree's entry points back at the same common dir, and the
	// main worktree holds it as its .git folder.
	cd, err := os.ReadFile(filepath.Join(gd, "commondir"))
	if err != nil {
		return "", "", false
	}
	c := strings.TrimSpace(string(cd))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gd, c)
	}
	if filepath.Clean(c) != common {
		return "", "", false
	}
	if st, err := os.Lstat(common); err != nil || !st.IsDir() {
		return "", "", false
	}
	return filepath.Dir(common), id, true
}

// sharedName is name as the main worktree's cat-file asks it for the
// linked worktree id ("" for the main worktree): the same object in every
// worktree, or HEAD by its per-worktree name. ok is false for a name that
// is the worktree's own in another way.
func sharedName(name, id string) (string, bool) {
	if strings.Contains(name, "@{") || strings.Contains(name, ":./") || strings.Contains(name, ":../") {
		return "", false
	}
	rev, _, _ := strings.Cut(name, ":")
	if rev == "" {
		// ":path", ":0:path": the worktree's index.
		return "", false
	}
	base := rev
	if i := strings.IndexAny(base, "^~@"); i >= 0 {
		base = base[:i]
	}
	switch {
	case base == "HEAD":
		if id == "" {
			return name, true
		}
		return "worktrees/" + id + "/" + name, true
	case strings.HasPrefix(base, "refs/"):
		for _, p := range []string{"refs/bisect/", "refs/worktree/", "refs/rewritten/"} {
			if strings.HasPrefix(base, p) {
				return "", false
			}
		}
		return name, true
	case ValidObjectID(base):
		return name, true
	}
	// A short name (main, origin/main) is looked up in the git dir first:
	// one all in capitals may be a worktree's pseudo-ref (ORIG_HEAD).
	first, _, _ := strings.Cut(base, "/")
	if first == "" || first == strings.ToUpper(first) {
		return "", false
	}
	return name, true
}
