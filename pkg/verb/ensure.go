package verb

import (
	"path/filepath"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// ensureWorktree recreates a task's worktree from its branch (fetched from
// the remote when only the remote has it) at this machine's worktree root,
// and records the new path when it differs.
func ensureWorktree(w *workflow.Workflow, id string) (*workflow.Entry, bool, error) {
	e, err := w.Get(id)
	if err != nil {
		return nil, false, err
	}
	b := e.Task.Branch()
	if b == "" {
		return nil, false, errs.New(errs.User, "%s has no branch (it is in %s and was never claimed)", id, e.Bucket).WithFix("git burl claim %s", id)
	}
	g := w.Repo.Git
	if ok, _ := workspace.BranchExists(g, b); !ok {
		remote := w.Config.Remote
		_, _ = g.Run("fetch", "-q", remote, "+refs/heads/"+b+":refs/remotes/"+remote+"/"+b)
		if ok, _ := g.Test("show-ref", "--verify", "-q", "refs/remotes/"+remote+"/"+b); ok {
			if _, err := g.Run("branch", "-q", "--track", b, remote+"/"+b); err != nil {
				return nil, false, err
			}
		}
	}
	rel := filepath.ToSlash(filepath.Join(filepath.Base(w.Repo.WorktreesDir()), b))
	path := filepath.Join(w.Repo.Root, rel)
	if cur := w.WorktreePath(e.Task); cur != "" {
		if wt, _ := workspace.Find(g, cur); wt != nil && wt.Branch == b {
			path, rel = cur, e.Task.Worktree()
		}
	}
	_, created, err := workspace.Ensure(g, path, b, "")
	if err != nil {
		return nil, false, err
	}
	if e.Task.Worktree() == rel {
		return e, created, nil
	}
	res, err := w.Run(workflow.Transition{
		Verb: "repair", ID: id, From: workflow.Buckets, Message: "repair " + id + ": worktree " + rel,
		Apply: func(tx *workflow.Tx) error {
			tx.Task.SetStr(task.KeyWorktree, rel)
			tx.Details["worktree"] = rel
			return nil
		},
	})
	if err != nil {
		return nil, created, err
	}
	return &res.Entry, created, nil
}
