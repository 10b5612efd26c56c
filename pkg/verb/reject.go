package verb

import (
	"fmt"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Reject is `git burl reject`: what cmd/git-burl-reject runs. Only the
// verbs a binary names are linked into it.
func Reject() cli.Command { return &rejectCmd{} }

type rejectCmd struct {
	cli.JSONFlag
	Reason string `long:"reason" short:"r" value-name:"TEXT" description:"Why the work is rejected (required; the next worker reads it)"`
}

func (c *rejectCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "reject")
	if err != nil {
		return nil, err
	}
	reason, err := requireReason("reject", id, c.Reason)
	if err != nil {
		return nil, err
	}
	return move{verb: "reject", label: "Rejected", from: []workflow.Bucket{workflow.QA}, to: workflow.Ready,
		apply:  func(w *workflow.Workflow, tx *workflow.Tx) error { qa.Reject(w, tx, reason, nil); return nil },
		detail: func(e workflow.Entry) string { return fmt.Sprintf(" (qa_attempts %d)", e.Task.Int(task.KeyQAAttempts)) },
	}.run(ctx, id)
}
