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

// Merged reports whether deleting branch loses nothing: for one of mains
// (full ref names, see MainRefs), the branch is an ancestor of it, or
// every commit of the branch is in it as the same patch (git cherry: the
// copies approve's rebase made) and, since git cherry does not see merges
// and a merge can carry content of its own, any merge among them changes
// nothing there either (merging the branch would leave main's tree as it
// is). A branch left in one clone by a task approved from another is
// usually only in the remote's main, and only as rebased copies.
func Merged(g gitx.Git, branch string, mains []string) bool {
	ref := "refs/heads/" + branch
	for _, m := range mains {
		if in, _ := g.Test("merge-base", "--is-ancestor", ref, m); in {
			return true
		}
	}
	for _, m := range mains {
		out, err := g.Run("cherry", m, ref)
		if err != nil || strings.Contains("\n"+out, "\n+") {
			continue
		}
		if merges, err := g.Run("rev-list", "--merges", m+".."+ref); err == nil && (merges == "" || contentIn(g, ref, m)) {
			return true
		}
	}
	return false
}

// contentIn reports whether merging ref into main would leave main's tree
// as it is: a clean merge whose result is main's own tree.
func contentIn(g gitx.Git, ref, main string) bool {
	out, err := g.Run("merge-tree", "--write-tree", "--no-messages", main, ref)
	if err != nil {
		return false // a conflict (exit 1) or unrelated histories: not in main
	}
	tree, _, _ := strings.Cut(out, "\n")
	mainTree, err := g.Run("rev-parse", main+"^{tree}")
	return err == nil && tree == mainTree
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
