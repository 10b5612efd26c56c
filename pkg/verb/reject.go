package verb

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
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
		apply:  func(w *workflow.Workflow, tx *workflow.Tx) error { rejectTask(w, tx, reason, nil); return nil },
		detail: func(e workflow.Entry) string { return fmt.Sprintf(" (qa_attempts %d)", e.Task.Int(task.KeyQAAttempts)) },
	}.run(ctx, id)
}

// rejectTask is PRD 14.5 applied inside a transaction: attempts+1, the
// reason in the QA Report, priority boost, BLOCKED at qa_max_attempts. The
// branch and worktree are kept for the next attempt. approve uses it too,
// when a rebase conflicts.
func rejectTask(w *workflow.Workflow, tx *workflow.Tx, reason string, extra []string) {
	t := tx.Task
	n := t.Int(task.KeyQAAttempts) + 1
	t.SetInt(task.KeyQAAttempts, n)
	var b strings.Builder
	fmt.Fprintf(&b, "### Rejected (attempt %d) — %s by %s\n\nReason: %s\n", n, tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor, oneLine(reason))
	for _, l := range extra {
		fmt.Fprintf(&b, "%s\n", l)
	}
	t.AppendToSection("QA Report", b.String())
	t.SetNull(task.KeySubmittedAt)
	t.SetNull(task.KeySubmittedSHA)
	t.SetNull(task.KeyAssignedTo)
	tx.To = workflow.Ready
	if n >= w.Config.QAMaxAttempts {
		tx.To = workflow.Blocked
		t.SetStr(task.KeyBlockedReason, fmt.Sprintf("max QA attempts reached (%d): %s", n, oneLine(reason)))
	} else if w.Config.AutoPriorityBoost {
		if r := task.PriorityRank(t.Priority()); r > 0 && r < len(task.Priorities) {
			t.SetStr(task.KeyPriority, task.Priorities[r-1])
		}
	}
	tx.Details["reason"] = reason
	tx.Details["qa_attempts"] = n
}
