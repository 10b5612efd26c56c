package verb

import (
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Block is `git burl block`: what cmd/git-burl-block runs. Only the
// verbs a binary names are linked into it.
func Block() cli.Command { return &blockCmd{} }

type blockCmd struct {
	cli.JSONFlag
	Reason string `long:"reason" short:"r" value-name:"TEXT" description:"Why the task cannot go on (required)"`
}

func (c *blockCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "block")
	if err != nil {
		return nil, err
	}
	why, err := requireReason("block", id, c.Reason)
	if err != nil {
		return nil, err
	}
	return move{verb: "block", label: "Blocked", from: []workflow.Bucket{workflow.Ready, workflow.Doing, workflow.QA}, to: workflow.Blocked,
		apply: func(w *workflow.Workflow, tx *workflow.Tx) error {
			qa.Block(w, tx, why)
			return nil
		},
	}.run(ctx, id)
}
