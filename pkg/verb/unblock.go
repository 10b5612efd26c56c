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
	Claim bool `long:"claim" description:"Claim it for yourself in the same step: no watch can take it in between"`
}

func (c *unblockCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "unblock")
	if err != nil {
		return nil, err
	}
	if c.Claim {
		w, err := open(ctx)
		if err != nil {
			return nil, err
		}
		return claim(ctx, w, id, claimHow{explicit: true, unblock: true})
	}
	return move{verb: "unblock", label: "Unblocked", from: []workflow.Bucket{workflow.Blocked}, to: workflow.Ready,
		apply: func(w *workflow.Workflow, tx *workflow.Tx) error {
			was, err := unblockTask(w, tx)
			if was != "" {
				tx.Details["was_blocked"] = was
			}
			return err
		},
	}.run(ctx, id)
}

// unblockTask takes a BLOCKED task out of BLOCKED inside a transaction
// once its dependencies are DONE, and returns why it was blocked.
func unblockTask(w *workflow.Workflow, tx *workflow.Tx) (string, error) {
	id := tx.Entry.ID
	done, err := w.DoneSet(tx.Task)
	if err != nil {
		return "", err
	}
	if unmet := workflow.UnmetDeps(tx.Task, done); len(unmet) > 0 {
		return "", errs.New(errs.User, "%s still depends on %s, which is not DONE", id, strings.Join(unmet, ", ")).
			WithFix("finish those first, or drop them: git burl edit %s --remove-depends-on %s", id, unmet[0])
	}
	// Why it was blocked stays in the task, for whoever claims it next
	// (claim and watch's prompt repeat it).
	why := tx.Task.Str(task.KeyBlockedReason)
	if why != "" {
		tx.Task.AppendToSection("QA Report", fmt.Sprintf("### Unblocked — %s by %s\n\nWas blocked: %s\n",
			tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor, oneLine(why)))
	}
	tx.Task.ClearBlocked()
	// Back in READY the task is anyone's to claim, and a task blocked from
	// QA must be submitted again: READY never carries an owner or a
	// submission (reject and release clear them the same way).
	tx.Task.SetNull(task.KeyAssignedTo)
	tx.Task.SetNull(task.KeySubmittedAt)
	tx.Task.SetNull(task.KeySubmittedSHA)
	return why, nil
}
