package doctor

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Leftover is a task worktree or task-* branch that no live task needs:
// it belongs to a DONE task, or to no task at all (an orphan).
type Leftover struct {
	Worktree string // absolute path of a worktree; "" for a branch
	Branch   string // the branch (for a worktree: the one checked out, "" when detached)
	Task     string // the DONE task it belongs to; "" for an orphan
}

// Leftovers lists what git burl clean may remove: registered worktrees
// under the task worktree root and task-* branches, owned by a DONE task
// or by none, by the same ownership rule doctor uses for orphans.
// Worktrees come first, so a caller removes a worktree before its branch.
func Leftovers(w *workflow.Workflow) ([]Leftover, error) {
	c := &checker{w: w, g: w.Repo.Git, report: &Report{}, fileTrouble: map[string]bool{}}
	if err := c.load(); err != nil {
		return nil, err
	}
	var out []Leftover
	root := w.Repo.WorktreesDir()
	for _, wt := range c.worktrees {
		rel, err := filepath.Rel(root, wt.Path)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		if id, ok := c.unneeded(c.owner(wt.Branch, wt.Path)); ok {
			out = append(out, Leftover{Worktree: wt.Path, Branch: wt.Branch, Task: id})
		}
	}
	var branches []Leftover
	for b := range c.branches {
		if _, ok := workflow.IDForBranch(b); !ok {
			continue
		}
		if id, ok := c.unneeded(c.owner(b, "")); ok {
			branches = append(branches, Leftover{Branch: b, Task: id})
		}
	}
	sort.Slice(branches, func(i, j int) bool { return branches[i].Branch < branches[j].Branch })
	return append(out, branches...), nil
}

// unneeded reports whether something owned by task id (or by no task,
// id "") may go: orphans may, and so may what a DONE task left.
func (c *checker) unneeded(id string) (string, bool) {
	if id == "" {
		return "", true
	}
	es := c.byID[id]
	return id, len(es) == 1 && es[0].Bucket == workflow.Done
}

// Merged reports whether deleting branch loses nothing: it is an ancestor
// of one of mains (full ref names, see MainRefs), or that main has a copy
// of each of its commits (git cherry: the same patch, as approve's rebase
// makes them) and merging the branch into it would change nothing. A
// branch left in one clone by a task approved from another is usually
// only in the remote's main, and only as rebased copies. git cherry alone
// is not enough: it skips merge commits, and a merge can carry content of
// its own; the merge's tree decides that.
func Merged(g gitx.Git, branch string, mains []string) bool {
	for _, m := range mains {
		if in, _ := g.Test("merge-base", "--is-ancestor", "refs/heads/"+branch, m); in {
			return true
		}
	}
	for _, m := range mains {
		out, err := g.Run("cherry", m, "refs/heads/"+branch)
		if err != nil || strings.Contains("\n"+out, "\n+") {
			continue
		}
		tree, err := g.Run("rev-parse", m+"^{tree}")
		if err != nil {
			continue
		}
		merged, err := g.Run("merge-tree", "--write-tree", "--no-messages", m, "refs/heads/"+branch)
		if first, _, _ := strings.Cut(merged, "\n"); err == nil && first == tree {
			return true
		}
	}
	return false
}

// MainRefs are the main branch and, when this clone has fetched it, the
// remote's: the places a task's work ends up.
func MainRefs(w *workflow.Workflow) []string {
	refs := []string{"refs/heads/" + w.Config.MainBranch}
	remote := gitx.Tracking(w.Config.Remote, w.Config.MainBranch)
	if ok, _ := w.Repo.Git.Test("rev-parse", "-q", "--verify", remote); ok {
		refs = append(refs, remote)
	}
	return refs
}
