package verb

import (
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

func init() { register("block", func() cli.Command { return &blockCmd{} }) }

type blockCmd struct {
	cli.JSONFlag
	Reason string `long:"reason" short:"r" value-name:"TEXT" description:"Why the task cannot go on (required)"`
}

func (c *blockCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "block")
	if err != nil {
		return nil, err
	}
	reason, err := requireReason("block", c.Reason)
	if err != nil {
		return nil, err
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	var from workflow.Bucket
	res, err := w.Run(workflow.Transition{
		Verb: "block", ID: id, From: []workflow.Bucket{workflow.Ready, workflow.Doing, workflow.QA}, To: workflow.Blocked,
		Message: "block " + id,
		Apply: func(tx *workflow.Tx) error {
			from = tx.Entry.Bucket
			tx.Task.SetStr(task.KeyBlockedReason, oneLine(reason))
			tx.Details["reason"] = reason
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	return moveOut{Task: taskObject(w, res.Entry), verb: "Blocked", entry: res.Entry, from: from}, nil
}
