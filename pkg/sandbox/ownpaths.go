package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/repo"
)

// ownPaths refuses work whose commits from the run's start to head hold
// one of burl's own paths (DESIGN §24): the workflow worktree, the
// worktrees folder, .git in any letter case. Each new commit counts, not
// only the sum, so that no commit that lands writes into them on the
// way. burl's own git reads the shared store, never the run's git dir.
func (run *Run) ownPaths(head string) error {
	if head == run.Before {
		return nil
	}
	paths, ok := run.firstParentPaths(head)
	if !ok {
		common := run.spec.Repo.CommonDir
		out, err := gitIn(common, "GIT_DIR="+common).Run("-c", "core.quotePath=false", "log", "--no-renames", "--name-only",
			"--format=", "-m", "--first-parent", "--end-of-options", run.Before+".."+head)
		if err != nil {
			return refuse("its commits cannot be listed: %v", err)
		}
		paths = strings.Split(out, "\n")
	}
	reserved := run.spec.Repo.Reserved()
	for _, p := range paths {
		if p == "" {
			continue
		}
		if r, ok := repo.ReservedPath(reserved, p); ok {
			return refuse("it writes %s, in burl's own path %s/, which is never part of a task's change", p, r)
		}
	}
	return nil
}

// firstParentPaths is what `git log --name-only -m --first-parent
// Before..head` lists, read through the repository's one cat-file (DESIGN
// §28: the run's one commit of what it left was a git log of its own):
// each commit of head's first-parent line against its first parent, back
// to Before. ok is false where the walk cannot vouch for the range (a path
// back from head that does not reach Before within gitx's walk limit):
// git log answers then.
func (run *Run) firstParentPaths(head string) (paths []string, ok bool) {
	g := run.spec.Repo.Git
	since, ok := g.Since(run.Before, head)
	if !ok {
		return nil, false
	}
	// Every commit of the range descends from Before: its first-parent
	// line reaches Before, through commits of the range only.
	for c, n := head, 0; c != run.Before; n++ {
		if n == len(since) {
			return nil, false
		}
		var parent string
		err := g.Cat([]string{c}, true, func(_ int, _, kind string, body []byte) error {
			if kind == "commit" {
				parent = firstParent(body)
			}
			return nil
		})
		if err != nil || parent == "" {
			return nil, false
		}
		changed, err := gitobj.ChangedPaths(g, parent, c)
		if err != nil {
			return nil, false
		}
		paths = append(paths, changed...)
		c = parent
	}
	return paths, true
}

// firstParent is the first parent a commit's body names ("" for a root).
func firstParent(body []byte) string {
	for _, l := range strings.Split(string(body), "\n") {
		if l == "" {
			break
		}
		if p, ok := strings.CutPrefix(l, "parent "); ok {
			return p
		}
	}
	return ""
}

// holdsReserved reports whether the worktree wt holds one of burl's own
// paths (reserved, in any letter case: a file, a link or a folder of that
// name), which git add -A would stage there; git refuses a .git component
// itself. A folder it cannot read counts as holding one.
func holdsReserved(wt string, reserved []string) bool {
	for _, r := range reserved {
		if holdsFold(wt, strings.Split(r, "/")) {
			return true
		}
	}
	return false
}

// holdsFold reports whether dir holds the path parts, each part matched
// in any letter case, through real folders only (add -A stages a link as
// a link, and does not follow it).
func holdsFold(dir string, parts []string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	for _, e := range ents {
		if !strings.EqualFold(e.Name(), parts[0]) {
			continue
		}
		if len(parts) == 1 || e.IsDir() && holdsFold(filepath.Join(dir, e.Name()), parts[1:]) {
			return true
		}
	}
	return false
}
