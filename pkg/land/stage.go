package land

import (
	"os"
	"time"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// The queue moves a task's branch (rebase, squash) holding main's lock
// only, while the task's worker may be running another task stacked on
// it: the move goes into the task's intent before it is made
// (integrate.Staging), so that watch's ref check takes it as burl's.

// stageIntent records that t's branch, at its submitted head, is about to
// be staged onto base by this process.
func stageIntent(w *workflow.Workflow, t *task.Task, base string) error {
	return integrate.RecordIntent(w.Repo.CommonDir, integrate.Intent{Task: t.ID(), Submitted: t.Str(task.KeySubmittedSHA), Base: base,
		Actor: w.Actor, Host: w.Host, PID: os.Getpid(), CreatedAt: time.Now().UTC()})
}

// intent is the approve's record of where a moves the task branch (and,
// landing, main) to.
func (a *approval) intent(w *workflow.Workflow, t *task.Task, now time.Time) integrate.Intent {
	in := integrate.Intent{Task: t.ID(), Submitted: t.Str(task.KeySubmittedSHA), Base: a.base, Merged: a.merged, Rebased: a.rebased,
		Actor: w.Actor, Host: w.Host, PID: os.Getpid(), CreatedAt: now}
	if a.squashed {
		in.Style = integrate.StyleSquash
	}
	return in
}

// unstage puts a staged task's branch back at its submitted head, and only
// then drops the record of the move.
func unstage(w *workflow.Workflow, g gitx.Git, t *task.Task) error {
	if err := restoreBranch(g, t); err != nil {
		return err
	}
	dropIntent(w, t.ID())
	return nil
}
