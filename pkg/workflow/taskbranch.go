package workflow

import (
	"path/filepath"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/taskbranch"
)

// IDForBranch derives the task ID from a task branch name (task-001-slug)
// without reading any file (taskbranch.IDForBranch).
func IDForBranch(branch string) (string, bool) { return taskbranch.IDForBranch(branch) }

// CurrentBranch is the branch checked out in dir ("" when detached).
func CurrentBranch(dir string) string { return taskbranch.CurrentBranch(dir) }

// TaskForBranch finds the task whose branch is branch, or nil.
func (w *Workflow) TaskForBranch(branch string) (*Entry, error) {
	id, ok := IDForBranch(branch)
	if !ok {
		return nil, nil
	}
	found, err := w.Locate(id)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	e, err := w.Get(id)
	if err != nil {
		return nil, err
	}
	if e.Task.Branch() != branch {
		return nil, nil
	}
	return e, nil
}

// TaskArgOrCurrent resolves an optional ID argument: the given one, or the
// task whose branch is checked out in dir (the worker's own worktree).
func (w *Workflow) TaskArgOrCurrent(args []string, dir, verb string) (string, error) {
	if len(args) > 1 {
		return "", errs.New(errs.User, "git burl %s takes at most one task ID (it expects exactly one task ID, or none inside the task's worktree)", verb)
	}
	if len(args) == 1 {
		return task.NormalizeID(args[0])
	}
	b := CurrentBranch(dir)
	if e, err := w.TaskForBranch(b); err == nil && e != nil {
		return e.ID, nil
	}
	return "", errs.New(errs.User, "git burl %s expects exactly one task ID: no task ID given and the current branch %q is not a task branch", verb, b).
		WithFix("git burl %s TASK-001 (or run it inside the task's worktree)", verb)
}

// WorktreePath is the absolute path of a task's recorded worktree.
func (w *Workflow) WorktreePath(t *task.Task) string {
	wt := t.Worktree()
	if wt == "" {
		return ""
	}
	return filepath.Join(w.Repo.Root, filepath.FromSlash(wt))
}
