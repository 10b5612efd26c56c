package review

import (
	"errors"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// A review holds its QA task under a lease, as a run holds its DOING task
// (issue 40): watchers on two machines would otherwise both review one
// head, one verdict dropped and an approve recorded twice. The lease is
// the task's lease_holder and lease_expires, granted by the transition
// review_start for the reviewer's timeout (its run cannot outlast it),
// and cleared by the review's record (Record) or any move of the
// task; a holder of this host whose process is gone holds nothing.

// ErrTaken is review_start finding the head reviewed by another
// watcher, or no longer the one to review.
var ErrTaken = &errs.Error{Kind: errs.User, Reason: "another watcher reviews this task now", Err: errors.New("review taken")}

// Holder is the live review lease of t that is not holder's: its
// holder, "" when there is none.
func Holder(w *workflow.Workflow, t *task.Task, holder string, now time.Time) string {
	h := t.Str(task.KeyLeaseHolder)
	if h == "" || h == holder || lease.Of(t, now, w.Config.LeaseGrace, w.Host).State != lease.Live {
		return ""
	}
	return h
}

// Take grants actor's watcher the review of id at head for d, through
// retry (which runs it again while a lock is held). It returns the other
// holder when the review is someone else's.
func Take(w *workflow.Workflow, id, actor, head string, d time.Duration, retry func(func() error) error) (other string, err error) {
	holder := lease.Holder(actor)
	err = retry(func() error {
		_, err := w.Run(workflow.Transition{Verb: "review_start", ID: id, From: []workflow.Bucket{workflow.QA},
			Message: "review_start " + id,
			Apply: func(tx *workflow.Tx) error {
				t := tx.Task
				if t.Str(task.KeySubmittedSHA) != head || t.ReviewApproved() {
					return ErrTaken
				}
				if other = Holder(w, t, holder, tx.Now); other != "" {
					return ErrTaken
				}
				exp := tx.Now.Add(d)
				t.SetStr(task.KeyLeaseHolder, holder)
				t.SetTime(task.KeyLeaseExpires, exp)
				tx.Details["head"], tx.Details["holder"], tx.Details["lease_expires"] = head, holder, exp.Format(time.RFC3339)
				return nil
			}})
		if errors.Is(err, ErrTaken.Err) {
			return ErrTaken
		}
		return err
	})
	return other, err
}
