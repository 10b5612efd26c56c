package verb

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Stop is `git burl stop`: what cmd/git-burl-stop runs. Only the verbs a
// binary names are linked into it.
func Stop() cli.Command { return &stopCmd{} }

type stopCmd struct {
	cli.JSONFlag
	Hold   bool   `long:"hold" description:"Hold it as well: no agent or watch claims it until git burl unhold"`
	Reason string `long:"reason" short:"r" value-name:"TEXT" description:"Why (recorded in the task; the watch that ran it says it)"`
}

// Run gives a DOING task back to READY (DESIGN §27), with --hold held in
// the same step. The watch running its agent sees the task gone within one
// round, ends the run and keeps its work so far on the task branch; a
// task nobody runs is released as release would.
func (c *stopCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "stop")
	if err != nil {
		return nil, err
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	if w.Repo.InWatchRun() {
		return nil, errs.New(errs.User, "inside a watch run a task is not stopped: only a human stops a run").
			WithTitle("Cannot stop %s", id).WithFix("exit the run instead")
	}
	why := strings.TrimSpace(c.Reason)
	if why == "" {
		why = "stopped by " + w.Actor
	}
	label := "Stopped"
	if c.Hold {
		label = "Stopped and held"
	}
	return move{verb: "stop", label: label, from: []workflow.Bucket{workflow.Doing}, to: workflow.Ready,
		apply: func(w *workflow.Workflow, tx *workflow.Tx) error {
			releaseTask(w, tx, why)
			if c.Hold {
				tx.Task.SetStr(task.KeyHeldReason, oneLine(why))
				tx.Details["hold"] = true
			}
			return nil
		},
		detail: func(e workflow.Entry) string {
			d := fmt.Sprintf(" (a watch running its agent ends the run within one round; its work so far stays on %s)", e.Task.Branch())
			if c.Hold {
				d += fmt.Sprintf("; held: git burl unhold %s gives it back", e.ID)
			}
			return d
		},
	}.run(ctx, id)
}
