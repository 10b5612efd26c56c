package qa

import (
	"fmt"
	"os"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Ensure recreates a task's worktree from its branch (fetched from
// the remote when only the remote has it) at this machine's worktree root,
// and records the new path when it differs.
func Ensure(w *workflow.Workflow, id string) (*workflow.Entry, bool, error) {
	e, err := w.Get(id)
	if err != nil {
		return nil, false, err
	}
	b := e.Task.Branch()
	if b == "" {
		return nil, false, errs.New(errs.User, "%s has no branch (it is in %s and was never claimed)", id, e.Bucket).WithFix("git burl claim %s", id)
	}
	rel, created, err := workspace.Restore(w.Repo.Git, w.Repo.Root, w.Repo.WorktreesDir(), w.Config.Remote, b, e.Task.Worktree())
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

// ForQA recreates, before validate or approve, the worktree of a
// QA task whose worktree is not on this machine: QA may run elsewhere than
// the work (push_task_branch_on_submit), and the fix would only be to run
// git burl worktree --ensure first. Anything else is left for the
// transition to report.
func ForQA(w *workflow.Workflow, e *workflow.Entry) error {
	if e.Bucket != workflow.QA || e.Task.Branch() == "" {
		return nil
	}
	if p := w.WorktreePath(e.Task); p != "" {
		if _, err := os.Stat(p); err == nil {
			return nil
		}
	}
	got, _, err := Ensure(w, e.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(w.Stderr, "burl: warning: %s had no worktree on this machine: recreated %s from branch %s\n", e.ID, w.Rel(w.WorktreePath(got.Task)), got.Task.Branch())
	return nil
}
