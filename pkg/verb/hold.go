package verb

import (
	"fmt"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Hold is `git burl hold`: what cmd/git-burl-hold runs. Only the verbs a
// binary names are linked into it.
func Hold() cli.Command { return &holdCmd{} }

type holdCmd struct {
	cli.JSONFlag
	Reason string `long:"reason" short:"r" value-name:"TEXT" description:"Why agents must leave the task alone (required; shown on status, show and the board)"`
}

// Hold keeps a task from agents (DESIGN §20): claim without an ID and
// watch pass it over, in READY or BLOCKED, until git burl unhold. A DOING
// task is released and held in one step, so that no watch claims it in
// between; the watch running its agent ends the run within one round,
// its work so far kept on the task branch. A QA task
// waits for approve, not for an agent: it is refused.
func (c *holdCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "hold")
	if err != nil {
		return nil, err
	}
	why, err := requireReason("hold", id, c.Reason)
	if err != nil {
		return nil, err
	}
	return move{verb: "hold", label: "Held", from: []workflow.Bucket{workflow.Ready, workflow.Blocked, workflow.Doing},
		apply: func(w *workflow.Workflow, tx *workflow.Tx) error {
			if tx.Entry.Bucket == workflow.Doing {
				releaseTask(w, tx, "held: "+why)
			}
			tx.Task.SetStr(task.KeyHeldReason, oneLine(why))
			tx.Details["reason"] = why
			return nil
		},
		detail: func(e workflow.Entry) string {
			return fmt.Sprintf(" (held: no agent or watch claims it; git burl unhold %s gives it back)", e.ID)
		},
	}.run(ctx, id)
}

// Unhold is `git burl unhold`: what cmd/git-burl-unhold runs.
func Unhold() cli.Command { return &unholdCmd{} }

type unholdCmd struct {
	cli.JSONFlag
}

func (c *unholdCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "unhold")
	if err != nil {
		return nil, err
	}
	return move{verb: "unhold", label: "Unheld", from: []workflow.Bucket{workflow.Ready, workflow.Blocked, workflow.Doing, workflow.QA},
		apply: func(w *workflow.Workflow, tx *workflow.Tx) error {
			was := tx.Task.Held()
			if was == "" {
				return errs.New(errs.User, "%s is not held", id).WithFix("git burl show %s", id)
			}
			tx.Task.SetNull(task.KeyHeldReason)
			tx.Details["was_held"] = was
			return nil
		},
	}.run(ctx, id)
}
