package land

import (
	"fmt"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Elsewhere is elsewhere, for watch, which sets such a task aside before
// its queue runs.
func Elsewhere(w *workflow.Workflow, t *task.Task) string { return elsewhere(w, t) }

// elsewhere is why this clone cannot land t, "" when it can try: the
// commit t was submitted at is neither here nor on the remote's copy of
// its branch (task branches are not pushed on submit, and another clone's
// agent did the work). That is nobody's failure (DESIGN §25): the task
// stays in QA for the clone that submitted it. The branch is fetched from
// the remote first, when the remote has it, so that any clone lands work
// that was pushed.
func elsewhere(w *workflow.Workflow, t *task.Task) string {
	sub, b := t.Str(task.KeySubmittedSHA), t.Branch()
	if sub == "" || b == "" {
		// Nothing to look for: approve itself says what is wrong.
		return ""
	}
	remote := w.Config.Remote
	if workspace.HaveCommit(w.Repo.Git, remote, b, sub) {
		return ""
	}
	where := "this clone"
	if remote != "" {
		where += " nor on " + remote
	}
	return fmt.Sprintf("waits for the clone that submitted it: its submitted commit %s (branch %s) is not in %s (push_task_branch_on_submit: true lets any clone land it)",
		gitx.Short(sub), b, where)
}
