package verb

import (
	"fmt"
	"io"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

func init() { register("reject", func() cli.Command { return &rejectCmd{} }) }

type rejectCmd struct {
	cli.JSONFlag
	Reason string `long:"reason" short:"r" value-name:"TEXT" description:"Why the work is rejected (required; the next worker reads it)"`
}

// moveOut is the result of a plain bucket move (reject, block, unblock, release).
type moveOut struct {
	Task   map[string]any `json:"task"`
	verb   string
	entry  workflow.Entry
	from   workflow.Bucket
	detail string
}

func (o moveOut) Human(w io.Writer) {
	fmt.Fprintf(w, "%s %s: %s → %s%s\n", o.verb, o.entry.ID, o.from, o.entry.Bucket, o.detail)
	if s := workflow.Suggest(o.entry.Bucket, o.entry.ID); s != "" {
		fmt.Fprintf(w, "next: %s\n", s)
	}
}

func requireReason(verb, reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return "", errs.New(errs.User, "git burl %s needs --reason", verb).WithFix(`git burl %s TASK-001 --reason "what is wrong and how to fix it"`, verb)
	}
	return reason, nil
}

func (c *rejectCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "reject")
	if err != nil {
		return nil, err
	}
	reason, err := requireReason("reject", c.Reason)
	if err != nil {
		return nil, err
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	res, err := w.Run(workflow.Transition{
		Verb: "reject", ID: id, From: []workflow.Bucket{workflow.QA}, To: workflow.Ready,
		Message: "reject " + id,
		Apply: func(tx *workflow.Tx) error {
			rejectTask(w, tx, reason, nil)
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	return moveOut{Task: taskObject(w, res.Entry), verb: "Rejected", entry: res.Entry, from: workflow.QA,
		detail: fmt.Sprintf(" (qa_attempts %d)", res.Entry.Task.Int(task.KeyQAAttempts))}, nil
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

// oneLine keeps multi-line reasons from breaking the report's structure.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
