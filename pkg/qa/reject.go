package qa

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Reject is PRD 14.5 applied inside a transaction: attempts+1, the
// reason in the QA Report, priority boost, BLOCKED at qa_max_attempts. The
// branch and worktree are kept for the next attempt. approve uses it too,
// when a rebase conflicts or a build fails, and settling a pull request
// that a reviewer sent back.
func Reject(w *workflow.Workflow, tx *workflow.Tx, reason string, extra []string) {
	t := tx.Task
	n := t.Int(task.KeyQAAttempts) + 1
	t.SetInt(task.KeyQAAttempts, n)
	var b strings.Builder
	fmt.Fprintf(&b, "### Rejected (attempt %d) — %s by %s\n\nReason: %s\n", n, tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor, OneLine(reason))
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
		t.SetStr(task.KeyBlockedReason, fmt.Sprintf("max QA attempts reached (%d): %s", n, OneLine(reason)))
	} else if w.Config.AutoPriorityBoost {
		if r := task.PriorityRank(t.Priority()); r > 0 && r < len(task.Priorities) {
			t.SetStr(task.KeyPriority, task.Priorities[r-1])
		}
	}
	tx.Details["reason"] = reason
	tx.Details["qa_attempts"] = n
}

// OneLine keeps multi-line reasons from breaking the report's structure
// (and a line of output from breaking in two).
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
