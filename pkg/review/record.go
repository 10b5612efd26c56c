package review

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Outcome is one review of a QA task, as Record records it.
type Outcome struct {
	// Reviewer is the reviewer's actor (name@host); Head the submitted
	// head it reviewed.
	Reviewer, Head string
	// Verdict is what the reviewer wrote; nil when the review failed,
	// Failure then says why.
	Verdict *Verdict
	Failure string
	// Try of Tries (the reviewer agent's retries + 1): the last failed
	// try leaves the task BLOCKED.
	Try, Tries int
	// Rounds is review.rounds: the request for changes that reaches it
	// leaves the task BLOCKED.
	Rounds int
	// Log is the reviewer's run log, relative to the repository.
	Log string
	// Usage is what the reviewer's run reported spending (nil: nothing):
	// it counts in the task's usage and budget as the author's runs do.
	Usage *usage.Usage
}

// Record is the transition `review` of task id, in QA and still at
// o.Head: approve keeps it in QA, for the queue to land; request_changes
// sends it back to READY with the summary and the comments in its QA
// report (the next prompt carries them), or to BLOCKED at review.rounds; a
// failed review keeps it in QA for the next try, or BLOCKS it after the
// last. The task's review_* keys hold the verdict for the head reviewed.
// w.Actor is the reviewer.
func Record(w *workflow.Workflow, id string, o Outcome) (*workflow.Result, error) {
	return w.Run(workflow.Transition{Verb: "review", ID: id, From: []workflow.Bucket{workflow.QA}, To: workflow.QA,
		Message: "review " + id,
		Apply: func(tx *workflow.Tx) error {
			t := tx.Task
			if h := t.Str(task.KeySubmittedSHA); h != o.Head {
				return errs.New(errs.User, "%s is at %s now, not at %s, which was reviewed: the review is void", id, gitx.Short(h), gitx.Short(o.Head)).
					WithFix("nothing to do: the new head is reviewed in turn")
			}
			// The review is over: its lease (watch's review_start) goes.
			for _, k := range []string{task.KeyLeaseHolder, task.KeyLeaseExpires} {
				if t.Has(k) {
					t.SetNull(k)
				}
			}
			round := t.Int(task.KeyReviewRounds) + 1
			verdict := Failed
			if o.Verdict != nil {
				verdict = o.Verdict.Verdict
			}
			t.SetStr(task.KeyReviewVerdict, verdict)
			t.SetStr(task.KeyReviewHead, o.Head)
			t.SetStr(task.KeyReviewer, o.Reviewer)
			d := tx.Details
			d["verdict"], d["reviewer"], d["head"], d["round"] = verdict, o.Reviewer, o.Head, round
			if o.Log != "" {
				d["log"] = o.Log
			}
			if o.Usage != nil {
				agent, _, _ := strings.Cut(o.Reviewer, "@")
				t.AddUsage(agent, *o.Usage)
				d["usage"] = *o.Usage
			}
			when := tx.Now.Format("2006-01-02T15:04:05Z")
			switch verdict {
			case Failed:
				d["reason"] = o.Failure
				d["try"] = o.Try
				t.AppendToSection("QA Report", fmt.Sprintf("### Review failed (try %d of %d) — %s by %s\n\n- head: %s\n- why: %s\n",
					o.Try, o.Tries, when, w.Actor, gitx.Short(o.Head), text(o.Failure)))
				if o.Try >= o.Tries {
					tx.To = workflow.Blocked
					t.SetBlocked(fmt.Sprintf("the review by %s failed %d time(s); last: %s; a human decides (review by hand, then git burl approve %s)",
						o.Reviewer, o.Try, qa.OneLine(o.Failure), id))
				}
				return nil
			case Approve:
				t.AppendToSection("QA Report", fmt.Sprintf("### Review: approve — %s by %s\n\n- head: %s (round %d)\n%s",
					when, w.Actor, gitx.Short(o.Head), round, report(o.Verdict)))
			case RequestChanges:
				t.SetInt(task.KeyReviewRounds, round)
				reason := fmt.Sprintf("the reviewer %s requested changes on %s (round %d of %d): %s", o.Reviewer, gitx.Short(o.Head), round, o.Rounds, o.Verdict.Summary)
				qa.Reject(w, tx, reason, strings.Split(strings.TrimRight(report(o.Verdict), "\n"), "\n"))
				tx.Action = "review"
				if round >= o.Rounds {
					tx.To = workflow.Blocked
					t.SetBlocked(fmt.Sprintf("the reviewer %s requested changes in %d round(s) (review.rounds %d): %s; a human decides",
						o.Reviewer, round, o.Rounds, qa.OneLine(o.Verdict.Summary)))
				}
			}
			d["summary"] = o.Verdict.Summary
			d["comments"] = len(o.Verdict.Comments)
			return nil
		}})
}

// report is the summary and comments as the QA report keeps them:
// task.ReviewMarker, then one "- path:line: body" per comment.
func report(v *Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", task.ReviewMarker, text(v.Summary))
	if len(v.Comments) > 0 {
		b.WriteString("Review comments:\n")
	}
	for _, c := range v.Comments {
		fmt.Fprintf(&b, "- %s:%d: %s\n", text(c.Path), c.Line, text(c.Body))
	}
	return b.String()
}

// text is what a reviewer wrote, safe inside a QA report: control
// characters dropped, and every line after the first indented, so that
// nothing it wrote can start a heading or a "Reason:" line of its own.
func text(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || r >= 0x20 && r != 0x7f && (r < 0x80 || r > 0x9f) {
			return r
		}
		return -1
	}, strings.TrimSpace(s))
	return strings.ReplaceAll(s, "\n", "\n    ")
}
