package workflow

import "github.com/burl-dev/burl/pkg/sparse"

// The sparse checkout of a long history is package sparse's; these names
// keep the workflow's callers as they were.

type cone = sparse.Cone

// sparseTree is the workflow worktree, for its sparse checkout.
func (w *Workflow) sparseTree() *sparse.Worktree {
	return &sparse.Worktree{Repo: w.Repo, Layout: w.layout(), Git: w.gitWT(), Stderr: w.Stderr}
}

func (w *Workflow) readCone() cone { return w.sparseTree().ReadCone() }

// Sparse reports whether the workflow worktree is burl's sparse checkout,
// where git commands on the old months' files need --sparse.
func (w *Workflow) Sparse() bool { return w.sparseTree().Sparse() }

func (w *Workflow) applyCone(month string) error { return w.sparseTree().ApplyCone(month) }

func (w *Workflow) restoreStash() { w.sparseTree().RestoreStash() }

func (w *Workflow) keepCone(c cone, rels []string) { w.sparseTree().KeepCone(c, rels) }

func (w *Workflow) materialize(from, to string) error { return w.sparseTree().Materialize(from, to) }

// MissingOutsideCone lists the committed files outside the cone of a
// sparse workflow worktree that are not on disk (worktree-relative).
func (w *Workflow) MissingOutsideCone() ([]string, error) { return w.sparseTree().MissingOutsideCone() }

// RestoreOutsideCone writes the files rels (MissingOutsideCone's) from the
// workflow branch.
func (w *Workflow) RestoreOutsideCone(rels []string) error {
	return w.sparseTree().RestoreOutsideCone(rels)
}
