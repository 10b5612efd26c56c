package runcheck

import (
	"time"

	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/runguard"
	"github.com/burl-dev/burl/pkg/workflow"
)

// stagedWait bounds how long the ref check waits for a move under way
// (integrate.Staging) to record its heads: the git commands between a
// branch's move and its record (a squash's commit-tree and update-ref)
// take milliseconds, seconds on a loaded machine.
const stagedWait = 30 * time.Second

// stagedMove reports whether task branch b's change c is a move burl
// recorded before it made it (approve --all staging the task, a restack):
// exactly the heads the task's intent names, from c.Old or from a head
// an event of the run's time set the branch to (via: a restack, then the
// queue's staging of the restacked head). The record is read now, after
// the refs were: one written before its move is there for any move the
// refs show. A move still under way is waited for; one burl undid
// meanwhile (the branch is back where it was) is burl's too.
func stagedMove(w *workflow.Workflow, b string, c runguard.RefChange, via map[string]bool) bool {
	id, ok := workflow.IDForBranch(b)
	if !ok {
		return false
	}
	in, staged := integrate.AwaitStaged(w.Repo.CommonDir, id, w.Host, stagedWait)
	if in.Moves(c.Old, c.New) {
		return true
	}
	for h := range via {
		if h != "" && in.Moves(h, c.New) {
			return true
		}
	}
	if !staged || in != nil {
		return false
	}
	now, err := w.Repo.Git.Run("rev-parse", "-q", "--verify", c.Name)
	return err == nil && now == c.Old
}
