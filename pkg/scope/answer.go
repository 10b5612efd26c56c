package scope

import (
	"fmt"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// WaitMarker is in the blocked_reason of a task watch blocked because its
// agent asked for wider scope: an answer to the request unblocks it.
const WaitMarker = "the agent asked for wider scope"

// Answer is a human's answer to a task's open scope request (DESIGN §25):
// granted, the change its agent asked for is made as git burl scope makes
// it; denied, the request is dropped with why, for the agent's next
// prompt. Either way the request is cleared, and a task watch blocked only
// for it goes back to READY for its agent's next run.
type Answer struct {
	ID    string
	Grant bool
	// Why is --deny's reason; a grant records the agent's own.
	Why string
}

// Answered is what an answer did.
type Answered struct {
	Change Change
	// Request is the request as the task recorded it.
	Request string
	// Unblocked: the task left BLOCKED for READY.
	Unblocked bool
	Result    *workflow.Result
}

// Do answers the request under the task's transaction.
func (a Answer) Do(w *workflow.Workflow) (Answered, error) {
	title := fmt.Sprintf("Cannot answer %s's scope request", a.ID)
	verb := "scope"
	if !a.Grant {
		verb = "scope_denied"
		if strings.TrimSpace(a.Why) == "" {
			return Answered{}, errs.New(errs.User, "--deny needs a reason: the agent reads it in its next prompt").
				WithTitle("%s", title).WithFix(`git burl scope %s --deny "why the task must do without it"`, a.ID)
		}
	}
	var out Answered
	res, err := w.Run(workflow.Transition{
		Verb: verb, ID: a.ID, From: []workflow.Bucket{workflow.Ready, workflow.Doing, workflow.QA, workflow.Blocked},
		Message: verb + " " + a.ID,
		Apply: func(tx *workflow.Tx) error {
			t := tx.Task
			asked := t.Str(task.KeyScopeRequest)
			if asked == "" {
				return errs.New(errs.User, "%s has no open scope request", a.ID).WithTitle("%s", title).
					WithFix(`git burl scope %s --affects PATH --reason "why" changes its scope yourself`, a.ID)
			}
			out = Answered{Request: asked}
			heading := "Scope request refused"
			why := strings.Join(strings.Fields(a.Why), " ")
			if a.Grant {
				q, err := pending(w, a.ID)
				if err != nil {
					return errs.Wrap(err, errs.User, title)
				}
				change, lists, err := q.plan(t)
				if err != nil && errs.KindOf(err) != errs.User {
					return err
				}
				if err == nil {
					for _, ad := range q.additions() {
						if len(change.Added[ad.key])+len(change.Removed[ad.key]) > 0 {
							t.SetList(ad.key, lists[ad.key])
						}
					}
					out.Change = change
				}
				heading = "Scope request granted"
				why = strings.Join(strings.Fields(q.Reason), " ")
				tx.Details["added"] = out.Change.Added
				tx.Details["removed"] = out.Change.Removed
				tx.Details["granted"] = true
			}
			t.SetNull(task.KeyScopeRequest)
			var b strings.Builder
			fmt.Fprintf(&b, "### %s — %s by %s\n\nAsked: %s\n", heading, tx.Now.UTC().Format("2006-01-02T15:04:05Z"), w.Actor, asked)
			if !a.Grant {
				fmt.Fprintf(&b, "\nRefused because: %s\n", why)
			}
			t.AppendToSection("QA Report", b.String())
			tx.Details["reason"] = why
			tx.Details["request"] = asked
			if tx.Entry.Bucket == workflow.Blocked && strings.Contains(t.Str(task.KeyBlockedReason), WaitMarker) {
				t.ClearBlocked()
				// READY never carries an owner or a submission.
				t.SetNull(task.KeyAssignedTo)
				t.SetNull(task.KeySubmittedAt)
				t.SetNull(task.KeySubmittedSHA)
				tx.To = workflow.Ready
				out.Unblocked = true
			}
			return nil
		},
	})
	out.Result = res
	return out, err
}

// pending is the request the task's last scope_request event recorded.
func pending(w *workflow.Workflow, id string) (Request, error) {
	evs, err := events.ForTask(w.EventsDir(), id, time.Time{})
	if err != nil {
		return Request{}, err
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Action != "scope_request" {
			continue
		}
		d := evs[i].Details
		q := Request{ID: id}
		q.Reason, _ = d["reason"].(string)
		added, _ := d["added"].(map[string]any)
		q.Affects = strs(added[task.KeyAffects])
		q.AffectsGlobs = strs(added[task.KeyAffectsGlobs])
		q.MustNotTouch = strs(added[task.KeyMustNotTouch])
		removed, _ := d["removed"].(map[string]any)
		for _, k := range []string{task.KeyAffects, task.KeyAffectsGlobs, task.KeyMustNotTouch} {
			q.Remove = append(q.Remove, strs(removed[k])...)
		}
		return q, nil
	}
	return Request{}, fmt.Errorf("the event log has no scope_request event of %s to grant", id)
}

func strs(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
