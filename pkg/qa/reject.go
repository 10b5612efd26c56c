package qa

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/reason"
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
		Block(w, tx, fmt.Sprintf("max QA attempts reached (%d): %s", n, reason))
	} else if w.Config.AutoPriorityBoost {
		// PRD 14.5 boosts a rejected task by default (a retry should not
		// queue behind new work); said where it happens, in the QA Report
		// and the event, and undone by git burl edit --priority.
		if r := task.PriorityRank(t.Priority()); r > 0 && r < len(task.Priorities) {
			from, to := t.Priority(), task.Priorities[r-1]
			t.SetStr(task.KeyPriority, to)
			t.AppendToSection("QA Report", fmt.Sprintf("Priority raised from %s to %s (auto_priority_boost_on_retry).\n", from, to))
			tx.Details["priority_from"], tx.Details["priority_to"] = from, to
		}
	}
	tx.Details["reason"] = reason
	tx.Details["qa_attempts"] = n
}

// Block records why a task is blocked inside a transaction: the summary
// and the one-line whole in the frontmatter, the text as written in the
// event and, when the summary had to leave some of it out, in the QA
// Report, where the human who decides reads it whole (DESIGN §20).
func Block(w *workflow.Workflow, tx *workflow.Tx, why string) {
	tx.Task.SetBlocked(why)
	tx.Details["reason"] = why
	tx.Details["summary"] = reason.Summary(why)
	if reason.Summary(why) != reason.OneLine(why) {
		tx.Task.AppendToSection("QA Report", fmt.Sprintf("### Blocked — %s by %s\n\n```text\n%s\n```\n",
			tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor, strings.ReplaceAll(strings.TrimSpace(why), "```", "'''")))
	}
}

// OneLine keeps multi-line reasons from breaking the report's structure
// (and a line of output from breaking in two).
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Outcome says where a task that was not landed went, as it is: a
// rejection that spent the last QA attempt went to BLOCKED, not back to
// READY (DESIGN §25). Approve --all and watch say it after every rejection.
func Outcome(e workflow.Entry) string {
	switch e.Bucket {
	case workflow.Ready:
		return "back to READY"
	case workflow.QA:
		return "stays in QA with the report"
	case workflow.Blocked:
		return fmt.Sprintf("BLOCKED: its %d QA attempt(s) are spent (qa_max_attempts)", e.Task.Int(task.KeyQAAttempts))
	}
	return "now in " + string(e.Bucket)
}
