package workflow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/notes"
	"github.com/burl-dev/burl/pkg/task"
)

// Transition is one state change of one task. Run executes it.
type Transition struct {
	Verb string   // the event action and lock action
	ID   string   // the task
	From []Bucket // buckets the task may be in
	// To is the destination bucket; "" keeps the task where it is. Apply
	// may change it (reject goes to BLOCKED at qa_max_attempts).
	To Bucket
	// Prepare runs under the task lock only, before the workflow lock:
	// the long part (gates, builds, rebases) must not hold up other tasks.
	Prepare func(tx *Tx) error
	// Apply runs under both locks and edits tx.Task in memory (and may make
	// git side effects, registering their undo with tx.OnRollback).
	Apply func(tx *Tx) error
	// Message is the one-line summary for the commit ("claim TASK-001").
	Message string
}

// Tx is a running transition.
type Tx struct {
	W *Workflow
	// Action is the event's action; Apply may change it (an approve whose
	// rebase conflicts is logged as the reject it turns into).
	Action  string
	Entry   *Entry
	Task    *task.Task
	To      Bucket
	Details map[string]any
	Now     time.Time
	// PushRefs are refspecs pushed atomically with the workflow branch when
	// workflow_auto_push is on (approve's main, claim's task branch).
	PushRefs []string
	// Before are events logged ahead of the transition's own, with its
	// time and in its commit: one transition that reads as two steps
	// (unblock --claim logs unblock, then claim).
	Before []Step
	// After are events logged behind the transition's own, with its time
	// and in its commit: a watcher's submit that also ends its run logs
	// submit, then run_end, in one push instead of two.
	After []Step
	undo  []func() error
	moved bool
	// carry is the landing record's notes commit that the transition's
	// commit writes with its own (CarryNotes).
	carry *notes.Pending
	// ahead is the read of HEAD made while Prepare runs, for the first
	// attempt's commit.
	ahead func() *ahead
}

// Step is one event of Tx.Before or Tx.After.
type Step struct {
	Action  string
	Details map[string]any
}

// OnRollback registers an undo step for a side effect just made.
func (tx *Tx) OnRollback(f func() error) { tx.undo = append(tx.undo, f) }

func (tx *Tx) rollback(cause error) error {
	var failed []string
	for i := len(tx.undo) - 1; i >= 0; i-- {
		if err := tx.undo[i](); err != nil {
			failed = append(failed, err.Error())
		}
	}
	tx.undo = nil
	if len(failed) > 0 {
		e := errs.Wrap(cause, errs.KindOf(cause), "")
		e.Reason += "\nrollback was incomplete: " + strings.Join(failed, "; ")
		e.Fix = "git burl doctor"
		return e
	}
	return cause
}

// begin points tx at a freshly read task, for one attempt of Apply.
func (tx *Tx) begin(tr Transition, e *Entry) {
	tx.Entry, tx.Task, tx.To = e, e.Task, tr.To
	if tx.To == "" {
		tx.To = e.Bucket
	}
	tx.Action, tx.Details, tx.PushRefs, tx.Before, tx.After, tx.moved, tx.carry = tr.Verb, map[string]any{}, nil, nil, nil, false, nil
}

// Result is what Run leaves behind.
type Result struct {
	Entry  Entry // the task file after the transition
	Commit string
}

// Run executes a transition: lock → check → prepare → write → move → log →
// commit (→ push) → unlock. Before the move, any failure rolls back every
// side effect; after it, the task is in its new bucket and a failure is
// reported with the repair command (PRD 14.1's rollback rules). With
// workflow_auto_push, Apply runs on the remote's latest state and is redone
// when another machine wins the push (see Mutate).
func (w *Workflow) Run(tr Transition) (*Result, error) {
	title := fmt.Sprintf("Cannot %s %s", tr.Verb, tr.ID)
	fail := func(err error) (*Result, error) { return nil, errs.Wrap(err, errs.KindOf(err), title) }
	tl, err := w.LockTask(tr.ID, tr.Verb)
	if err != nil {
		return fail(err)
	}
	defer tl.Release()
	// With auto-push the check below reads the remote's latest state, and
	// the commit stands on that same pull (a push that loses pulls again).
	if w.AutoPush() {
		if err := w.mutate(tr.Verb, true, func(int) (string, []string, error) { return "", nil, nil }); err != nil {
			return fail(err)
		}
	}
	tx := &Tx{W: w, Now: time.Now().UTC()}
	first, err := w.checkBucket(tr)
	if err != nil {
		return fail(err)
	}
	tx.begin(tr, first)
	tx.ahead = w.readAhead(w.aheadPaths(first, tr.To, tx.Now)...)
	if tr.Prepare != nil {
		if err := tr.Prepare(tx); err != nil {
			return fail(tx.rollback(err))
		}
		faults.CrashPoint(tr.Verb, "prepare")
	}
	var res *Result
	err = w.mutate(tr.Verb, true, func(attempt int) (string, []string, error) {
		e, err := w.checkBucket(tr)
		if err != nil {
			if e != nil && e.Bucket != first.Bucket {
				// Another machine moved the task since we looked.
				who := "another machine"
				if e.Task != nil && e.Task.Str(task.KeyAssignedTo) != "" {
					who = e.Task.Str(task.KeyAssignedTo)
				}
				return "", nil, &LostError{Reason: fmt.Sprintf("%s was moved to %s by %s meanwhile", tr.ID, e.Bucket, who)}
			}
			return "", nil, err
		}
		tx.begin(tr, e)
		if res, err = w.apply(tr, tx); err != nil {
			return "", nil, err
		}
		return res.Commit, tx.PushRefs, nil
	})
	if err != nil {
		var undone interface{ Undone() bool }
		if !tx.moved || errors.As(err, &undone) {
			err = tx.rollback(err)
		}
		return fail(err)
	}
	if res.Entry.Bucket != first.Bucket {
		// Released first: a child's block takes its own locks.
		_ = tl.Release()
		w.blockStacked(res.Entry)
	}
	return res, nil
}

// checkBucket finds the task and checks it is in one of tr.From; the entry
// is returned even when it is not, so callers can say where it went.
func (w *Workflow) checkBucket(tr Transition) (*Entry, error) {
	e, err := w.Get(tr.ID)
	if err != nil {
		return nil, err
	}
	for _, b := range tr.From {
		if e.Bucket == b {
			return e, nil
		}
	}
	var from []string
	for _, b := range tr.From {
		from = append(from, string(b))
	}
	if e.Bucket == Proposed {
		return e, errs.New(errs.User, "%s is PROPOSED: an agent proposed it, and no one works on it until a human accepts it; %s needs it in %s", tr.ID, tr.Verb, strings.Join(from, " or ")).
			WithFix("%s", Suggest(e.Bucket, tr.ID))
	}
	return e, errs.New(errs.User, "%s is in %s; %s needs it in %s", tr.ID, e.Bucket, tr.Verb, strings.Join(from, " or ")).
		WithFix("%s", Suggest(e.Bucket, tr.ID))
}

// apply is one attempt's write → move → log → commit. A failure before the
// move restores the task file; rolling back other side effects is Run's.
func (w *Workflow) apply(tr Transition, tx *Tx) (*Result, error) {
	before := tx.Task.Bytes()
	if tr.Apply != nil {
		if err := tr.Apply(tx); err != nil {
			return nil, err
		}
	}
	if (tx.To == Ready || tx.To == Done) && tx.Task.Int(task.KeyPort) != 0 {
		// Every way out of work frees the task's port (DESIGN §18).
		tx.Task.SetNull(task.KeyPort)
	}
	if tx.To != tx.Entry.Bucket && tx.To != Doing {
		// A lease is a watcher's hold on a task where it is (its run in
		// DOING, its review in QA): a task that moves on (released,
		// submitted, blocked, rejected, landed) keeps none, so that a
		// later claim by hand is never read as a watcher's (DESIGN §25).
		for _, k := range []string{task.KeyLeaseHolder, task.KeyLeaseExpires} {
			if tx.Task.Has(k) {
				tx.Task.SetNull(k)
			}
		}
	}
	// The landing record is journalled before any file of the
	// transition is written (carry.go).
	if err := w.journal(tx); err != nil {
		return nil, err
	}
	src := tx.Entry.Path
	if err := fsx.WriteFile(src, tx.Task.Bytes()); err != nil {
		return nil, fmt.Errorf("writing %s: %w", w.Rel(src), err)
	}
	faults.CrashPoint(tr.Verb, "write")
	dst := src
	if tx.To != tx.Entry.Bucket {
		dir, err := w.DestDir(tx.To, tx.Now)
		if err != nil {
			if rerr := fsx.WriteFile(src, before); rerr != nil {
				err = fmt.Errorf("%w; restoring %s also failed: %v", err, w.Rel(src), rerr)
			}
			return nil, errs.New(errs.User, "creating %s: %v", w.Rel(dir), err).
				WithFix("nothing was changed; fix the cause and run the command again")
		}
		dst = filepath.Join(dir, filepath.Base(src))
	}
	if dst != src {
		if err := fsx.Move(src, dst); err != nil {
			var deg *fsx.Degraded
			if !errors.As(err, &deg) {
				// The metadata must not claim a state the folder does not show.
				if rerr := fsx.WriteFile(src, before); rerr != nil {
					err = fmt.Errorf("%w; restoring %s also failed: %v", err, w.Rel(src), rerr)
				}
				return nil, errs.New(errs.User, "moving %s to %s: %v", w.Rel(src), tx.To, err).
					WithFix("nothing was changed; fix the cause and run the command again")
			}
			fmt.Fprintf(w.Stderr, "burl: warning: %v\n", deg)
		}
		faults.CrashPoint(tr.Verb, "move")
	}
	tx.moved = true
	entry := Entry{ID: tx.Entry.ID, Bucket: tx.To, Path: dst, Task: tx.Task}
	tid := tr.ID
	if tx.To != tx.Entry.Bucket {
		tx.Details["from"], tx.Details["to"] = string(tx.Entry.Bucket), string(tx.To)
	}
	for _, st := range tx.Before {
		if _, err := w.log(events.Event{TS: tx.Now, Task: &tid, Action: st.Action, Actor: w.Actor, Details: st.Details}); err != nil {
			return &Result{Entry: entry}, w.afterMove(tr, err)
		}
	}
	shard, err := w.log(events.Event{TS: tx.Now, Task: &tid, Action: tx.Action, Actor: w.Actor, Details: tx.Details})
	if err != nil {
		return &Result{Entry: entry}, w.afterMove(tr, err)
	}
	for _, st := range tx.After {
		if _, err := w.log(events.Event{TS: tx.Now, Task: &tid, Action: st.Action, Actor: w.Actor, Details: st.Details}); err != nil {
			return &Result{Entry: entry}, w.afterMove(tr, err)
		}
	}
	faults.CrashPoint(tr.Verb, "log")
	read := tx.ahead
	tx.ahead = nil
	sha, err := w.commit(read, tr.Message, src, dst, shard)
	if err != nil {
		return &Result{Entry: entry}, w.afterMove(tr, err)
	}
	faults.CrashPoint(tr.Verb, "commit")
	return &Result{Entry: entry, Commit: sha}, nil
}

func (w *Workflow) afterMove(tr Transition, err error) error {
	return errs.Wrap(err, errs.KindOf(err), "").WithFix(
		"%s is now in its new bucket but the step after the move failed; run git burl doctor, then git burl doctor --repair --force", tr.ID)
}

// log is the single emission point of events; it returns the shard
// written, for the commit.
func (w *Workflow) log(e events.Event) (string, error) {
	// As Append writes it, so a notifier gets the log's own line.
	if e.TS.IsZero() {
		e.TS = time.Now()
	}
	e.TS = e.TS.UTC().Truncate(time.Second)
	p, err := events.Append(w.EventsDir(), e)
	if err == nil {
		w.emitted = append(w.emitted, e)
	}
	return p, err
}

// Event records an event that is not a task transition (init, add,
// lock_clear, clean, repair) and commits it with the files it touched.
// The caller holds the workflow lock.
func (w *Workflow) Event(action, taskID string, details map[string]any, summary string, paths ...string) (string, error) {
	e := events.Event{TS: time.Now().UTC(), Action: action, Actor: w.Actor, Details: details}
	if taskID != "" {
		e.Task = &taskID
	}
	log, err := w.log(e)
	if err != nil {
		return "", err
	}
	sha, err := w.Commit(summary, append(paths, log)...)
	if err != nil {
		// An event must not outlive the change it describes: other clones
		// would otherwise receive it with the next commit.
		if rel, rerr := filepath.Rel(w.Repo.Worktree, log); rerr == nil {
			if _, cerr := w.gitWT().Run("checkout", "-q", "HEAD", "--", filepath.ToSlash(rel)); cerr != nil {
				// The day's first committed event: the shard is not in
				// HEAD. Take back our line, the last (the workflow lock
				// is held), and nothing else.
				dropLastLine(log)
			}
		}
		return "", err
	}
	return sha, nil
}

// Suggest is the next command for a task in bucket b.
func Suggest(b Bucket, id string) string {
	switch b {
	case Ready:
		return "git burl claim " + id
	case Doing:
		return "git burl submit " + id
	case QA:
		return "git burl validate " + id + " && git burl approve " + id
	case Blocked:
		return "git burl unblock " + id
	case Proposed:
		return "git burl accept " + id + " (a human's word: an agent proposed it; or git burl cancel " + id + " --reason \"...\")"
	}
	return ""
}

// dropLastLine removes the final line of the NDJSON file p (the file
// goes when nothing is left).
func dropLastLine(p string) {
	data, err := os.ReadFile(p)
	if err != nil {
		return
	}
	i := strings.LastIndexByte(strings.TrimSuffix(string(data), "\n"), '\n')
	if i < 0 {
		_ = os.Remove(p)
		return
	}
	_ = fsx.WriteFile(p, data[:i+1])
}
