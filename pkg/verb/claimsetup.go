package verb

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// heldPorts are the ports of tasks that still hold one: DOING, and QA and
// BLOCKED (their work may run again); READY and DONE have given theirs up.
func heldPorts(w *workflow.Workflow, except string) (map[int]bool, error) {
	taken := map[int]bool{}
	for _, b := range []workflow.Bucket{workflow.Doing, workflow.QA, workflow.Blocked} {
		es, _, err := w.InBucket(b)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if p := e.Task.Int(task.KeyPort); p != 0 && e.ID != except {
				taken[p] = true
			}
		}
	}
	return taken, nil
}

// claimPort picks id's port; outside the workflow lock, so Apply checks
// it again.
func claimPort(w *workflow.Workflow, id string) (int, error) {
	taken, err := heldPorts(w, id)
	if err != nil {
		return 0, err
	}
	return workspace.Port(id, w.Config.PortRange, taken)
}

// portStillFree is the check under the workflow lock: a claim that raced
// ours to the same port makes this one fail as a lost race (exit 4), and
// rolls back, rather than two tasks sharing a port.
func portStillFree(w *workflow.Workflow, id string, port int) error {
	taken, err := heldPorts(w, id)
	if err != nil {
		return err
	}
	if taken[port] {
		return errs.New(errs.Lock, "port %d was taken by another claim meanwhile", port).
			WithFix("git burl claim %s", id)
	}
	return nil
}

// setupWorktree runs config worktree_setup in a new task worktree, its
// output in the task's logs; a failure fails the claim (rolled back), with
// the log to read.
func setupWorktree(w *workflow.Workflow, t *task.Task, id, branch, wt string, port int) error {
	s := w.Config.WorktreeSetup
	if len(s.Copy) == 0 && len(s.Link) == 0 && len(s.Command) == 0 {
		return nil
	}
	if err := trust.Check(w.Repo, w.SetupCommands()...); err != nil {
		return err
	}
	dir := filepath.Join(w.LogsDir(), id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p := filepath.Join(dir, time.Now().UTC().Format("20060102T150405.000Z")+"-setup.log")
	log, err := os.Create(p)
	if err != nil {
		return err
	}
	defer log.Close()
	env := append(os.Environ(), "BURL_TASK="+id, "BURL_TITLE="+t.Title(), "BURL_WORKTREE="+wt,
		"BURL_BRANCH="+branch, "BURL_PORT="+strconv.Itoa(port))
	var box gate.Box
	if len(s.Command) > 0 {
		if box, err = qa.GateBox(w, wt, strings.Join(s.Command, " ")); err != nil {
			return err
		}
	}
	if err := workspace.Setup(w.Repo, wt, s, box, env, w.Config.BuildTimeout, log); err != nil {
		e := errs.Wrap(err, errs.KindOf(err), "")
		e.Reason += fmt.Sprintf(" (output in %s)", w.Rel(p))
		return e.WithFix("fix worktree_setup in .burl/.workflow/config.yaml or what it needs, then git burl claim %s again", id)
	}
	return nil
}
