package watch

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// errLost is a renewal finding the task is no longer this watcher's: taken
// over after its lease expired, released or moved by hand.
var errLost = &errs.Error{Kind: errs.Lock, Reason: "the task is no longer held by this watcher", Err: errors.New("lost")}

// LeaseOf is a task's lease expiry. A lease counts only when it was granted
// after the current claim (not before started_at): a lease left in the file
// by an earlier watch run must not make a later hand claim look abandoned.
func LeaseOf(t *task.Task) (time.Time, bool) {
	exp, err := time.Parse(time.RFC3339, t.Str(task.KeyLeaseExpires))
	if err != nil {
		return time.Time{}, false
	}
	if started, err := time.Parse(time.RFC3339, t.Str(task.KeyStartedAt)); err == nil && exp.Before(started) {
		return time.Time{}, false
	}
	return exp, true
}

// Holder is the lease holder a watcher process writes for actor: actor
// plus this process's id, so that two watchers on one host (or a watcher
// that resumes after its task was taken over and claimed again under the
// same name) are told apart.
func Holder(actor string) string { return actor + "#" + strconv.Itoa(os.Getpid()) }

// Expired says whether t is a DOING task whose lease ran out at now, grace
// past lease_expires (clock skew between machines). A lease that does not
// parse counts as expired, and so does one held by a watcher of this host
// (host) whose process is gone: nobody will renew either.
func Expired(t *task.Task, now time.Time, grace time.Duration, host string) bool {
	// A watcher gone between its claim and its first lease left a holder
	// (claim records it) and no lease: nobody will ever renew it.
	if holderGone(t.Str(task.KeyLeaseHolder), host) {
		return true
	}
	raw := t.Str(task.KeyLeaseExpires)
	if raw == "" {
		return false
	}
	if _, err := time.Parse(time.RFC3339, raw); err != nil {
		return true
	}
	exp, ok := LeaseOf(t)
	return ok && now.After(exp.Add(grace))
}

// holderGone reports whether holder (name@host#pid) is a watcher of this
// host whose process no longer runs.
func holderGone(holder, host string) bool {
	_, gone := goneLocalHolder(holder, host)
	return gone
}

// goneLocalHolder is holderGone with the dead watcher's pid.
func goneLocalHolder(holder, host string) (int, bool) {
	at, pid, ok := strings.Cut(holder, "#")
	if !ok || host == "" || !strings.HasSuffix(at, "@"+host) {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	return n, err == nil && n > 0 && n != os.Getpid() && !osx.ProcessAlive(n)
}

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
			holder := Holder(actor)
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

// takeOver releases id when its lease is still expired under the locks:
// READY again, branch and worktree kept, the reason in its notes, event
// lease_expired.
func takeOver(w *workflow.Workflow, id string) (bool, error) {
	took := false
	_, err := w.Run(workflow.Transition{Verb: "lease_expired", ID: id, From: []workflow.Bucket{workflow.Doing}, To: workflow.Ready,
		Message: "lease_expired " + id,
		Apply: func(tx *workflow.Tx) error {
			took = false
			t := tx.Task
			if !Expired(t, tx.Now, w.Config.LeaseGrace, w.Host) {
				return errRenewed
			}
			who := t.Str(task.KeyAssignedTo)
			reason := fmt.Sprintf("lease of %s expired at %s", who, t.Str(task.KeyLeaseExpires))
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
			return false, nil
		}
		return false, err
	}
	return took, nil
}

var errRenewed = &errs.Error{Kind: errs.Lock, Reason: "the lease was renewed meanwhile", Err: errors.New("renewed")}
