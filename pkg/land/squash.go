package land

import (
	"strings"

	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// merge_strategy: squash (DESIGN §26): the task's commits, rebased onto
// main, become one commit on main whose message says which task it is and
// who did it. The task branch moves to that commit, so that whatever holds
// for a rebased branch holds for it too: main only fast-forwards, a killed
// approve's commit is still on its task branch (integrate.Main takes local
// main back off it), and RebasedFrom reads the branch's reflog back to the
// submitted commit.

// squash replaces the rebased commits a.base..HEAD of the task worktree g
// by one commit on a.base with the same tree, authored by whoever did the
// work and committed by the approver, and sets a.merged to it.
func (a *approval) squash(w *workflow.Workflow, t *task.Task, g gitx.Git) error {
	head, err := g.Run("rev-parse", "HEAD")
	if err != nil {
		return err
	}
	au, err := integrate.WorkAuthor(w, t)
	if err != nil {
		return err
	}
	rg := w.Repo.Git
	rg.Env = append(rg.Env[:len(rg.Env):len(rg.Env)], "GIT_AUTHOR_NAME="+au.Name, "GIT_AUTHOR_EMAIL="+au.Email)
	out, err := rg.RunInput([]byte(integrate.SquashMessage(t, au.Agent)), "commit-tree", head+"^{tree}", "-p", a.base)
	if err != nil {
		return err
	}
	sq := strings.TrimSpace(string(out))
	// A compare-and-swap: the branch is where the rebase left it.
	if _, err := g.Run("update-ref", "-m", integrate.SquashReflog+" "+t.ID(), "refs/heads/"+t.Branch(), sq, head); err != nil {
		return err
	}
	faults.CrashPoint("approve", "squash")
	a.squashed, a.rebased = true, head
	return nil
}
