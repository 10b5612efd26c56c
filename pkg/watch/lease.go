package watch

import (
	"errors"
	"fmt"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// errLost is a renewal finding the task is no longer this watcher's: taken
// over after its lease expired, released or moved by hand.
var errLost = &errs.Error{Kind: errs.Lock, Reason: "the task is no longer held by this watcher", Err: errors.New("lost")}

// lease is one transition that keeps id in DOING, checks it is still
// actor's, (re)sets its lease and logs action with details. The check runs
// under the task and workflow locks on freshly pulled state, so a renewal
// and a takeover on two machines are ordered by the remote: whichever
// pushes second sees the first.
func leaseTx(w *workflow.Workflow, id, actor, action string, seconds int, details map[string]any) error {
	_, err := w.Run(workflow.Transition{Verb: action, ID: id, From: []workflow.Bucket{workflow.Doing},
		Message: action + " " + id,
		Apply: func(tx *workflow.Tx) error {
			if tx.Task.Str(task.KeyAssignedTo) != actor {
				return errLost
			}
			holder := lease.Holder(actor)
			if h := tx.Task.Str(task.KeyLeaseHolder); h != "" && h != holder {
				// Taken over and claimed again under the same name by
				// another watcher (or this one before a restart): claim
				// records who holds it.
				return errLost
			}
			tx.Task.SetStr(task.KeyLeaseHolder, holder)
			exp := tx.Now.Add(time.Duration(seconds) * time.Second)
			tx.Task.SetTime(task.KeyLeaseExpires, exp)
			for k, v := range details {
				tx.Details[k] = v
			}
			tx.Details["lease_expires"] = exp.Format(time.RFC3339)
			return nil
		}})
	return err
}

// takeOver releases id when its holder is still gone under the locks
// (dead, or its lease expired): READY again, branch and worktree kept, the
// reason in its notes, event lease_expired. It returns what it found.
func takeOver(w *workflow.Workflow, id string) (lease.Status, bool, error) {
	took := false
	var found lease.Status
	_, err := w.Run(workflow.Transition{Verb: "lease_expired", ID: id, From: []workflow.Bucket{workflow.Doing}, To: workflow.Ready,
		Message: "lease_expired " + id,
		Apply: func(tx *workflow.Tx) error {
			took = false
			t := tx.Task
			found = lease.Of(t, tx.Now, w.Config.LeaseGrace, w.Host)
			if !found.Gone() {
				return errRenewed
			}
			who := t.Str(task.KeyAssignedTo)
			reason := found.Describe()
			t.AppendToSection("Implementation Notes", fmt.Sprintf("Released by %s at %s: %s (branch kept)", w.Actor, tx.Now.Format(time.RFC3339), reason))
			t.SetNull(task.KeyAssignedTo)
			t.SetNull(task.KeyLeaseExpires)
			t.SetNull(task.KeyLeaseHolder)
			tx.Details["reason"] = reason
			tx.Details["was_assigned_to"] = who
			took = true
			return nil
		}})
	if err != nil {
		if errs.KindOf(err) == errs.Lock {
			// Renewed meanwhile, or its owner is busy with it right now, or
			// another watcher took it first: not ours to take.
			return found, false, nil
		}
		return found, false, err
	}
	return found, took, nil
}

var errRenewed = &errs.Error{Kind: errs.Lock, Reason: "the lease was renewed meanwhile", Err: errors.New("renewed")}
