package verb

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Unblock is `git burl unblock`: what cmd/git-burl-unblock runs. Only the
// verbs a binary names are linked into it.
func Unblock() cli.Command { return &unblockCmd{} }

type unblockCmd struct {
	cli.JSONFlag
}

func (c *unblockCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "unblock")
	if err != nil {
		return nil, err
	}
	return move{verb: "unblock", label: "Unblocked", from: []workflow.Bucket{workflow.Blocked}, to: workflow.Ready,
		apply: func(w *workflow.Workflow, tx *workflow.Tx) error {
			done, err := w.DoneSet(tx.Task)
			if err != nil {
				return err
			}
			if unmet := workflow.UnmetDeps(tx.Task, done); len(unmet) > 0 {
				return errs.New(errs.User, "%s still depends on %s, which is not DONE", id, strings.Join(unmet, ", ")).
					WithFix("finish those first, or edit depends_on in the task file")
			}
			// Why it was blocked stays in the task, for whoever claims it
			// next (claim and watch's prompt repeat it).
			if why := tx.Task.Str(task.KeyBlockedReason); why != "" {
				tx.Task.AppendToSection("QA Report", fmt.Sprintf("### Unblocked — %s by %s\n\nWas blocked: %s\n",
					tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor, oneLine(why)))
				tx.Details["was_blocked"] = why
			}
			tx.Task.SetNull(task.KeyBlockedReason)
			// Back in READY the task is anyone's to claim, and a task blocked
			// from QA must be submitted again: READY never carries an owner
			// or a submission (reject and release clear them the same way).
			tx.Task.SetNull(task.KeyAssignedTo)
			tx.Task.SetNull(task.KeySubmittedAt)
			tx.Task.SetNull(task.KeySubmittedSHA)
			return nil
		},
	}.run(ctx, id)
}
