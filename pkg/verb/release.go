package verb

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

func init() { register("release", func() cli.Command { return &releaseCmd{} }) }

type releaseCmd struct {
	cli.JSONFlag
	Reason string `long:"reason" short:"r" value-name:"TEXT" description:"Why the task is given back (recorded in the task)"`
}

func (c *releaseCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "release")
	if err != nil {
		return nil, err
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	res, err := w.Run(workflow.Transition{
		Verb: "release", ID: id, From: []workflow.Bucket{workflow.Doing}, To: workflow.Ready,
		Message: "release " + id,
		Apply: func(tx *workflow.Tx) error {
			t := tx.Task
			who := t.Str(task.KeyAssignedTo)
			t.SetNull(task.KeyAssignedTo)
			if r := strings.TrimSpace(c.Reason); r != "" {
				t.AppendToSection("Implementation Notes", fmt.Sprintf("Released by %s at %s (was %s): %s", w.Actor, tx.Now.Format("2006-01-02T15:04:05Z"), who, oneLine(r)))
				tx.Details["reason"] = r
			}
			tx.Details["was_assigned_to"] = who
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	return moveOut{Task: taskObject(w, res.Entry), verb: "Released", entry: res.Entry, from: workflow.Doing, detail: " (branch and worktree kept)"}, nil
}
