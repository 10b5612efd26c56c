package watch

import (
	"errors"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// A review holds its QA task under a lease, as a run holds its DOING task
// (issue 40): watchers on two machines would otherwise both review one
// head, one verdict dropped and an approve recorded twice. The lease is
// the task's lease_holder and lease_expires, granted by the transition
// review_start for the reviewer's timeout (its run cannot outlast it),
// and cleared by the review's record (review.Record) or any move of the
// task; a holder of this host whose process is gone holds nothing.

// errReviewTaken is review_start finding the head reviewed by another
// watcher, or no longer the one to review.
var errReviewTaken = &errs.Error{Kind: errs.User, Reason: "another watcher reviews this task now", Err: errors.New("review taken")}

// reviewHolder is the live review lease of t that is not holder's: its
// holder, "" when there is none.
func reviewHolder(w *workflow.Workflow, t *task.Task, holder string, now time.Time) string {
	h := t.Str(task.KeyLeaseHolder)
	if h == "" || h == holder || lease.Of(t, now, w.Config.LeaseGrace, w.Host).State != lease.Live {
		return ""
	}
	return h
}

// takeReview grants actor's watcher the review of id at head for d. It
// returns the other holder when the review is someone else's.
func takeReview(w *workflow.Workflow, id, actor, head string, d time.Duration) (other string, err error) {
	holder := lease.Holder(actor)
	err = retryLocked(func() error {
		_, err := w.Run(workflow.Transition{Verb: "review_start", ID: id, From: []workflow.Bucket{workflow.QA},
			Message: "review_start " + id,
			Apply: func(tx *workflow.Tx) error {
				t := tx.Task
				if t.Str(task.KeySubmittedSHA) != head || t.ReviewApproved() {
					return errReviewTaken
				}
				if other = reviewHolder(w, t, holder, tx.Now); other != "" {
					return errReviewTaken
				}
				exp := tx.Now.Add(d)
				t.SetStr(task.KeyLeaseHolder, holder)
				t.SetTime(task.KeyLeaseExpires, exp)
				tx.Details["head"], tx.Details["holder"], tx.Details["lease_expires"] = head, holder, exp.Format(time.RFC3339)
				return nil
			}})
		if errors.Is(err, errReviewTaken.Err) {
			return errReviewTaken
		}
		return err
	})
	return other, err
}

// fetchAgain is how long a head found only in another clone is not
// looked for again (each look may be a fetch).
const fetchAgain = 5 * time.Second

// haveHead reports whether t's submitted head is in this clone (fetched
// from the remote when it has the branch there): a review of a head
// this clone lacks could only fail, which is not the work's failure.
func (s *supervisor) haveHead(w *workflow.Workflow, t *task.Task) bool {
	key := t.ID() + " " + t.Str(task.KeySubmittedSHA)
	s.mu.Lock()
	at, looked := s.foreign[key]
	s.mu.Unlock()
	if looked && time.Since(at) < fetchAgain {
		return false
	}
	if workspace.HaveCommit(w.Repo.Git, w.Config.Remote, t.Branch(), t.Str(task.KeySubmittedSHA)) {
		return true
	}
	s.mu.Lock()
	s.foreign[key] = time.Now()
	s.mu.Unlock()
	return false
}
