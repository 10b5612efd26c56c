package land

import (
	"fmt"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/review"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// ReviewGate is the reviewer as a gate (DESIGN §21): with agents.yaml's
// review:, a task lands only on its reviewer's approve of the head it
// submitted. One gate is read per use (an approve, a queue, a watch round).
type ReviewGate struct {
	settings *agents.Review
}

// Reviews reads the gate as the workflow branch has it committed. Like a
// command it is this user's to trust: a review: changed or removed by
// someone else is not obeyed (nor ignored) before `git burl trust`.
func Reviews(w *workflow.Workflow) (ReviewGate, error) {
	s, err := review.Settings(w)
	if err != nil {
		return ReviewGate{}, err
	}
	if err := trust.Check(w.Repo, trust.Review(w.Dir, s)); err != nil {
		return ReviewGate{}, err
	}
	return ReviewGate{settings: s}, nil
}

// Settings is review: (nil when no review is configured).
func (g ReviewGate) Settings() *agents.Review { return g.settings }

// Wait is why t may not land yet, "" when it may: the one question
// single approve, approve --all (and so watch's auto_approve) and watch's
// choice of what to review ask.
func (g ReviewGate) Wait(t *task.Task) string {
	if g.settings == nil || t == nil {
		return ""
	}
	if t.ReviewApproved() {
		return ""
	}
	head := t.Str(task.KeySubmittedSHA)
	why := fmt.Sprintf("waits for the review by %s (agents.yaml review:) of its head %s", g.settings.Agent, gitx.Short(head))
	if t.Str(task.KeyReviewVerdict) == review.Failed && t.Str(task.KeyReviewHead) == head {
		why += "; the last review failed and is run again"
	}
	return why
}

// reviewed is the review gate for one approve: work already in main
// (--accept-landed) is past it, a human may override it (byHand), and a
// task of the queue it holds is refused (the queue leaves such tasks out
// before it starts).
func reviewed(w *workflow.Workflow, t *task.Task, mode approveMode) (string, error) {
	switch mode {
	case acceptingLanded:
		return "", nil
	case byHuman:
		return byHand(w, t)
	}
	g, err := Reviews(w)
	if err != nil {
		return "", err
	}
	if why := g.Wait(t); why != "" {
		return "", errs.New(errs.User, "%s %s", t.ID(), why).WithTitle("Cannot approve %s", t.ID()).
			WithFix("watch runs the reviewer; or a human approves it by hand: git burl approve %s", t.ID())
	}
	return "", nil
}

// byHand decides what single approve does with a task the gate holds: a
// human's `git burl approve ID` lands it anyway, says so and records the
// override (the review is advice a human may overrule); from inside a
// watch run it is refused (an agent never approves past its reviewer).
// It returns why the review was overridden, "" when the gate is open.
func byHand(w *workflow.Workflow, t *task.Task) (string, error) {
	g, err := Reviews(w)
	if err != nil {
		return "", err
	}
	why := g.Wait(t)
	if why == "" {
		return "", nil
	}
	if osx.InWatchRun() {
		return "", errs.New(errs.User, "%s %s; an agent's run cannot approve past its reviewer", t.ID(), why).
			WithTitle("Cannot approve %s", t.ID()).WithFix("nothing to do: watch runs the reviewer, and lands the task on its approve")
	}
	fmt.Fprintf(w.Stderr, "burl: warning: %s %s; approving it by hand overrides the review (recorded in its QA report and the approve event)\n", t.ID(), why)
	return why, nil
}

// recordOverride is the record of a human's approve past the gate.
func recordOverride(w *workflow.Workflow, tx *workflow.Tx, why string) {
	if why == "" {
		return
	}
	t := tx.Task
	t.SetStr(task.KeyReviewVerdict, review.Overridden)
	t.SetStr(task.KeyReviewHead, t.Str(task.KeySubmittedSHA))
	t.AppendToSection("QA Report", fmt.Sprintf("### Review overridden — %s by %s\n\n- the task %s; %s approved it by hand\n",
		tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor, qa.OneLine(why), w.Actor))
	tx.Details["review_overridden"] = why
}

// reviewBody is the review of the head a pull request opens with, for its
// description: the reviewer's approve (summary and comments), or the
// human's override; "" without review.
func reviewBody(w *workflow.Workflow, t *task.Task, overridden string) string {
	if overridden != "" {
		return fmt.Sprintf("**Overridden**: %s approved it by hand; the task %s.", w.Actor, overridden)
	}
	if !t.ReviewApproved() {
		return ""
	}
	return fmt.Sprintf("**approve** by %s of `%s`\n\n%s", t.Str(task.KeyReviewer), gitx.Short(t.Str(task.KeyReviewHead)), review.LastEntry(t, "Review: approve"))
}
