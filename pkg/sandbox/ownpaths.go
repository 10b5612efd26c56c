package sandbox

import (
	"strings"

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
	common := run.spec.Repo.CommonDir
	out, err := gitIn(common, "GIT_DIR="+common).Run("-c", "core.quotePath=false", "log", "--no-renames", "--name-only",
		"--format=", "-m", "--first-parent", "--end-of-options", run.Before+".."+head)
	if err != nil {
		return refuse("its commits cannot be listed: %v", err)
	}
	reserved := run.spec.Repo.Reserved()
	for _, p := range strings.Split(out, "\n") {
		if p == "" {
			continue
		}
		if r, ok := repo.ReservedPath(reserved, p); ok {
			return refuse("it writes %s, in burl's own path %s/, which is never part of a task's change", p, r)
		}
	}
	return nil
}
