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
	var was string
	return move{verb: "reject", label: "Rejected", from: []workflow.Bucket{workflow.QA}, to: workflow.Ready,
		apply: func(w *workflow.Workflow, tx *workflow.Tx) error {
			was = tx.Task.Priority()
			qa.Reject(w, tx, reason, nil)
			return nil
		},
		detail: func(e workflow.Entry) string {
			return fmt.Sprintf(" (qa_attempts %d%s)", e.Task.Int(task.KeyQAAttempts), boosted(e, was))
		},
	}.run(ctx, id)
}

// boosted is what reject says of a priority it raised, "" when none.
func boosted(e workflow.Entry, from string) string {
	if to := e.Task.Priority(); from != "" && to != from {
		return fmt.Sprintf("; priority raised %s → %s (auto_priority_boost_on_retry; git burl edit %s --priority %s undoes it)", from, to, e.ID, from)
	}
	return ""
}
