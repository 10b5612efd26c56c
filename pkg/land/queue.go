package land

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/landforge"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// QueueResult is what approve --all did (DESIGN §11). Its JSON is the
// pinned {"ok","approved","rejected"}.
type QueueResult struct {
	OK       bool           `json:"ok"`
	Approved []string       `json:"approved"`
	Rejected []QueueFailure `json:"rejected"`
	// Opened: with landing: pr, the pull requests opened or updated (the
	// tasks stay in QA until the forge merges them).
	Opened []QueuePR `json:"pr_opened,omitempty"`
	// Waiting are the QA tasks the queue left alone, with why: held by the
	// review gate (DESIGN §21), or submitted in another clone that alone
	// has their commits (§25). Not failures: they land once approved, or
	// in that clone.
	Waiting []QueueFailure `json:"waiting,omitempty"`
	// Builds counts the runs of build_command: with every task passing,
	// one per batch of queue_batch tasks.
	Builds int `json:"-"`
	// Lines tell what happened to each task, in the order it happened.
	Lines []string `json:"-"`
}

// QueueFailure is a task approve --all did not land, and why. Code is the
// exit code single approve would have given for it: 2 (validation) only
// for a failure of the work itself; a lock or a race (4), git or the
// remote (3) or anything else is not the work's, and watch does not reject
// the task for it (DESIGN §25).
type QueueFailure struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
	Code   int    `json:"code,omitempty"`
	// Elsewhere: a waiting task whose commits only the clone that
	// submitted it has.
	Elsewhere bool `json:"elsewhere,omitempty"`
}

// ExitCode is 0 when every task landed, else the first failure's code.
func (r *QueueResult) ExitCode() int {
	if len(r.Rejected) == 0 {
		return 0
	}
	return r.Rejected[0].Code
}

// stacked is a task rebased onto the one before it in its batch, its own
// gates passed, waiting for the batch's build.
type stacked struct {
	e         workflow.Entry
	a         *approval
	dir       string
	g         gitx.Git
	submitted string
	// failedChecks names the forge's checks that failed on this task's
	// candidate (queue_ci: forge).
	failedChecks string
}

type queue struct {
	w     *workflow.Workflow
	m     integrate.Main
	res   *QueueResult
	tries map[string]int
	// main is main's commit under the batch being staged, and stacked the
	// tasks staged on it so far: what a conflict's reason names (the
	// stack's own tip is a commit main never was).
	main    string
	stacked []string
	// deferred are tasks stacked on a parent that had not landed when
	// they were staged: staged again once it has.
	deferred []string
	// ci reads the forge's checks of each candidate (queue_ci: forge),
	// nil when the queue waits on build_command alone; candidates are the
	// branches pushed for it, deleted when the queue ends.
	ci         forge.Checker
	candidates []string
	// gate is the review gate the queue was read with, seen every QA
	// task it read then or took behind a building batch since, and
	// parent the task each of those is stacked on.
	gate   ReviewGate
	seen   map[string]bool
	parent map[string]string
}

// landTries bounds how often a task whose landing lost a race (main moved
// on the remote) is put back in the queue.
const landTries = 3

// ApproveAll is `git burl approve --all` (watch runs it for auto_approve):
// every QA task in queue order, each rebased onto what the one before it
// left, its own scope, stub and verify gates run on its rebased range, build_command run once per batch of
// queue_batch tasks on the top of the stack and bisected on failure. Main
// only fast-forwards, one task (one DONE commit) at a time, so each landing
// is the same transaction as single approve's. Per-task failures are in
// the result; the error is for what stops the whole queue.
func ApproveAll(w *workflow.Workflow) (*QueueResult, error) {
	if err := landforge.TrustedChecks(w); err != nil {
		return nil, err
	}
	if w.Config.Landing == "pr" {
		return approveAllPR(w)
	}
	q := &queue{w: w, m: integrate.For(w), res: &QueueResult{Approved: []string{}, Rejected: []QueueFailure{}}, tries: map[string]int{}}
	pending, err := q.order()
	if err != nil {
		return nil, err
	}
	if w.Config.MergeStrategy == "manual" {
		// Main holds the work already: nothing to rebase or build.
		for _, id := range pending {
			q.single(id)
		}
		return q.done(), nil
	}
	// Every command the queue may run is trusted before anything moves:
	// half a queue landed and the rest refused helps nobody.
	if err := w.CheckConfigInput(); err != nil {
		return nil, err
	}
	if err := trust.Check(w.Repo, w.QueueCommands()...); err != nil {
		return nil, err
	}
	if w.Config.CI.Queue == "forge" && len(pending) > 0 {
		if q.ci, err = landforge.QueueChecker(w); err != nil {
			return nil, err
		}
	}
	defer q.removeCandidates()
	l, err := w.LockMain()
	if err != nil {
		return nil, err
	}
	defer l.Release()
	// Under the main lock: local main may go back off a killed approve's
	// commits before the queue builds on it.
	q.m = integrate.ForLanding(w)
	for len(pending) > 0 || q.releaseDeferred(&pending) {
		q.pull()
		tip, err := q.m.Base()
		if err != nil {
			for _, id := range pending {
				q.fail(id, err)
			}
			break
		}
		var stack []*stacked
		q.main, q.stacked = tip, nil
		// What staging says (a conflict, failed gates) is told after the
		// landings of the tasks staged before: in the order things happen.
		mark := len(q.res.Lines)
		for len(pending) > 0 && len(stack) < w.Config.QueueBatch {
			id := pending[0]
			pending = pending[1:]
			if s := q.stage(id, tip); s != nil {
				stack = append(stack, s)
				tip = s.a.merged
				q.stacked = append(q.stacked, id)
			}
		}
		staged := append([]string(nil), q.res.Lines[mark:]...)
		q.res.Lines = q.res.Lines[:mark]
		// The batch is the train's first car; cars stacked on it may
		// follow while it builds (train.go).
		train := []*car{q.depart(stack)}
		for len(train) > 0 {
			q.follow(&train, &pending)
			c := train[0]
			if osx.Interrupted() {
				// Ctrl-C stopped a build: it proves nothing about the stack,
				// which goes back to where it was, nothing landed or rejected.
				n, err := q.stopTrain(train)
				if err != nil {
					return nil, err
				}
				return nil, errs.New(errs.User, "interrupted while building a batch of %d task(s); none of them was landed or rejected, and they stay in QA", n).
					WithTitle("Stopped").WithFix("git burl approve --all again")
			}
			again := q.landAll(c.good)
			q.res.Lines = append(q.res.Lines, staged...)
			staged = nil
			culprit := c.culprit
			if len(again) > 0 {
				// A landing lost a race: the rest of the batch, culprit too, is
				// staged again on the new main.
				if culprit != nil {
					again = append(again, culprit)
				}
			} else if culprit != nil {
				q.rejectBuild(culprit, len(c.stack) > 1)
			}
			var ids []string
			for _, s := range append(again, c.after...) {
				if err := unstage(w, s.g, s.e.Task); err != nil {
					return nil, err
				}
				ids = append(ids, s.e.ID)
			}
			train = train[1:]
			if len(ids) > 0 || culprit != nil {
				// Not landed whole: the cars behind were built on it.
				more, err := q.derail(train)
				if err != nil {
					return nil, err
				}
				ids, train = append(ids, more...), nil
			}
			pending = append(ids, pending...)
		}
	}
	return q.done(), nil
}

// order lists the QA tasks in queue order, leaving out (said in its
// lines) those the review gate holds.
func (q *queue) order() ([]string, error) {
	w := q.w
	qa, _, err := w.InBucket(workflow.QA)
	if err != nil {
		return nil, err
	}
	gate, err := Reviews(w)
	if err != nil {
		return nil, err
	}
	q.gate, q.seen, q.parent = gate, map[string]bool{}, map[string]string{}
	var ts []*task.Task
	for _, e := range qa {
		if e.Task == nil {
			continue
		}
		q.seen[e.ID], q.parent[e.ID] = true, e.Task.Str(task.KeyStackedOn)
		waits, why := holdOf(e.Task, gate, func(t *task.Task) string { return elsewhere(w, t) })
		switch waits {
		case "":
			ts = append(ts, e.Task)
		case WaitsScopeRequest:
			// An agent asked for more scope: a human decides, not the queue.
			fmt.Fprintf(w.Stderr, "approve --all: %s left in QA: it %s\n", e.ID, why)
		default:
			q.res.Waiting = append(q.res.Waiting, QueueFailure{ID: e.ID, Reason: why, Elsewhere: waits == WaitsElsewhere})
			q.res.Lines = append(q.res.Lines, fmt.Sprintf("left %s in QA: it %s", e.ID, why))
		}
	}
	queueOrder(ts)
	ts = stack.ChildAfterParent(ts)
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID()
	}
	return ids, nil
}

func (q *queue) done() *QueueResult {
	q.res.OK = len(q.res.Rejected) == 0
	return q.res
}

func (q *queue) approved(id, line string) {
	q.res.Approved = append(q.res.Approved, id)
	q.res.Lines = append(q.res.Lines, line)
}

func (q *queue) failed(id, reason string, code int) {
	q.res.Rejected = append(q.res.Rejected, QueueFailure{ID: id, Reason: reason, Code: code})
	q.res.Lines = append(q.res.Lines, fmt.Sprintf("not approved %s: %s", id, reason))
}

// fail records an error that kept a task from landing, with its message
// and the exit code single approve would give; unless another process or
// machine moved the task meanwhile (its branch and worktree may be gone
// with it), which is theirs to report.
func (q *queue) fail(id string, err error) {
	q.pull()
	if e, gerr := q.w.Get(id); gerr == nil && e.Bucket != workflow.QA {
		q.res.Lines = append(q.res.Lines, fmt.Sprintf("skipped %s: moved to %s elsewhere meanwhile", id, e.Bucket))
		return
	}
	msg := err.Error()
	var e *errs.Error
	if errors.As(err, &e) && e.Reason != "" {
		msg = e.Reason
	}
	q.failed(id, qa.OneLine(msg), int(errs.KindOf(err)))
}

// single approves one task as `git burl approve ID` does.
func (q *queue) single(id string) {
	out, err := approve(q.w, id, byQueue)
	if err != nil {
		q.fail(id, err)
		return
	}
	q.approved(id, fmt.Sprintf("approved %s: %s at %s", id, q.w.Config.MainBranch, gitx.Short(out.Merged)))
}

// stage rebases a task onto base and runs its own gates. It returns nil
// when the task is out of the queue: moved meanwhile, approved already,
// rejected (conflict) or failed.
func (q *queue) stage(id, base string) *stacked {
	w := q.w
	e, err := w.Get(id)
	if err != nil || e.Bucket != workflow.QA {
		// Another approver or a reject moved it since the queue was read.
		return nil
	}
	if err := qa.ForQA(w, e); err != nil {
		q.fail(id, err)
		return nil
	}
	if in, err := workAlreadyInMain(w, e.Task); err != nil {
		q.fail(id, err)
		return nil
	} else if in {
		// An interrupted approve: single approve finishes it.
		q.single(id)
		return nil
	}
	if stack.WaitsOutside(w, e.Task, func(p string) bool { return slices.Contains(q.stacked, p) }) != "" {
		// Its parent, not staged below it in this batch, may land in
		// this run: staged again after it.
		q.deferred = append(q.deferred, id)
		return nil
	}
	t := e.Task
	dir, g, err := approvableBranch(w, t)
	if err != nil {
		q.fail(id, err)
		return nil
	}
	a := &approval{base: base, onMain: q.main, stackedOn: append([]string(nil), q.stacked...)}
	// The move is recorded before it is made (stageIntent), its heads
	// once it is.
	if err := stageIntent(w, t, base); err != nil {
		q.fail(id, err)
		return nil
	}
	if _, err := a.rebase(w, t, g); err != nil {
		_ = unstage(w, g, t)
		q.fail(id, err)
		return nil
	}
	if a.conflict != nil {
		dropIntent(w, id)
		q.record(*e, a, fmt.Sprintf("rebase conflict in %s", strings.Join(a.conflict.Files, ", ")), int(errs.Git))
		return nil
	}
	if err := integrate.RecordIntent(w.Repo.CommonDir, a.intent(w, t, time.Now().UTC())); err != nil {
		_ = unstage(w, g, t)
		q.fail(id, err)
		return nil
	}
	if err := a.check(w, t, g, dir, time.Now().UTC(), false); err != nil {
		_ = unstage(w, g, t)
		q.fail(id, err)
		return nil
	}
	if len(a.failed) > 0 {
		if err := unstage(w, g, t); err != nil {
			q.fail(id, err)
			return nil
		}
		q.record(*e, a, "gates failed: "+gateNames(a.failed), int(errs.Validation))
		return nil
	}
	return &stacked{e: *e, a: a, dir: dir, g: g, submitted: t.Str(task.KeySubmittedSHA)}
}

// releaseDeferred puts back into pending the deferred tasks whose parent
// has landed meanwhile (reporting true when there are some); the others
// stay deferred while those may land their parents (a chain lands one
// link a round), and then wait, said as the review gate's waiting tasks
// are.
func (q *queue) releaseDeferred(pending *[]string) bool {
	held := q.deferred
	q.deferred = nil
	type wait struct{ id, why string }
	var waits []wait
	for _, id := range held {
		e, err := q.w.Get(id)
		if err != nil || e.Bucket != workflow.QA {
			continue
		}
		if why := stack.Waits(q.w, e.Task); why != "" {
			waits = append(waits, wait{id, fmt.Sprintf("waits for %s, which it is stacked on and which %s", e.Task.Str(task.KeyStackedOn), why)})
			continue
		}
		*pending = append(*pending, id)
	}
	for _, wt := range waits {
		if len(*pending) > 0 {
			q.deferred = append(q.deferred, wt.id)
			continue
		}
		q.res.Waiting = append(q.res.Waiting, QueueFailure{ID: wt.id, Reason: wt.why})
		q.res.Lines = append(q.res.Lines, fmt.Sprintf("left %s in QA: it %s", wt.id, wt.why))
	}
	return len(*pending) > 0
}

// pull brings the workflow branch up to the remote's (workflow_auto_push),
// so that tasks another machine approved meanwhile are seen as DONE.
func (q *queue) pull() {
	if q.w.AutoPush() {
		_ = q.w.Mutate("approve", func(int) (string, []string, error) { return "", nil, nil })
	}
}

func gateNames(vs gate.Violations) string {
	var names []string
	for _, v := range vs {
		if !strings.Contains(strings.Join(names, " "), v.Gate) {
			names = append(names, v.Gate)
		}
	}
	return strings.Join(names, ", ")
}

// record commits what approve records for a task that does not land (a
// conflict turns into a reject, failed gates stay in QA with the report).
func (q *queue) record(e workflow.Entry, a *approval, reason string, code int) {
	res, err := q.w.Run(workflow.Transition{Verb: "approve", ID: e.ID, From: []workflow.Bucket{workflow.QA}, To: workflow.Done,
		Message: "approve " + e.ID,
		Apply:   func(tx *workflow.Tx) error { return a.record(q.w, tx) }})
	if err != nil {
		q.fail(e.ID, err)
		return
	}
	q.failed(e.ID, reason+"; "+qa.Outcome(res.Entry), code)
}

// landAll fast-forwards main over the tasks in order, one DONE commit each.
// The tasks past one that did not land were built on it: they are returned
// to be staged again, with that task itself when it lost a race and is
// still in QA.
func (q *queue) landAll(good []*stacked) (again []*stacked) {
	for i, s := range good {
		switch q.land(s) {
		case landed:
			continue
		case lost:
			return good[i:]
		default:
			return good[i+1:]
		}
	}
	return nil
}

type landing int

const (
	landed    landing = iota
	lost              // another machine moved main first; the task is still in QA
	notLanded         // failed (recorded), or approved elsewhere meanwhile
)

// land is single approve's transaction for a task already rebased, checked
// and built: fast-forward main, record DONE, clean up.
func (q *queue) land(s *stacked) landing {
	w, a := q.w, s.a
	res, err := w.Run(workflow.Transition{Verb: "approve", ID: s.e.ID, From: []workflow.Bucket{workflow.QA}, To: workflow.Done,
		Message: "approve " + s.e.ID,
		Prepare: func(tx *workflow.Tx) error {
			if tx.Task.Str(task.KeySubmittedSHA) != s.submitted {
				return errs.New(errs.User, "%s was submitted again while approve --all built it", s.e.ID).
					WithFix("git burl approve %s", s.e.ID)
			}
			return a.land(w, tx, q.m)
		},
		Apply: func(tx *workflow.Tx) error { return a.record(w, tx) },
	})
	if err != nil {
		// A landing whose push lost to another clone's must not leave
		// its fast-forward in local main: that rebased copy is on no
		// branch, and every later landing here would find main diverged
		// from the remote's (DESIGN §25: not the work's failure, and
		// not to strand the clone's other tasks).
		q.undoLocalMain(a)
		// Every approve that does not land leaves the branch as submitted.
		if rerr := unstage(w, s.g, s.e.Task); rerr != nil {
			err = errors.Join(err, rerr)
		}
		var moved *mainMoved
		if e, gerr := w.Get(s.e.ID); gerr == nil && e.Bucket == workflow.QA && (errs.KindOf(err) == errs.Lock || errors.As(err, &moved)) && q.tries[s.e.ID] < landTries {
			q.tries[s.e.ID]++
			return lost
		}
		q.fail(s.e.ID, err)
		return notLanded
	}
	dropIntent(w, s.e.ID)
	cleanup(w, res.Entry.Task)
	q.approved(s.e.ID, fmt.Sprintf("approved %s: %s fast-forwarded to %s (drift %d)", s.e.ID, w.Config.MainBranch, gitx.Short(a.merged), a.drift))
	if w.Config.Stack {
		for _, l := range stack.RestackBut(w, s.e.ID, a.merged, q.isStaged) {
			q.res.Lines = append(q.res.Lines, l)
		}
	}
	return landed
}

// rejectBuild rejects the task bisection found breaking the build (or,
// with queue_ci: forge, the forge's checks), with the build's output (the
// failed checks and their logs) in its QA report (V1's reject: READY,
// qa_attempts+1).
func (q *queue) rejectBuild(s *stacked, bisected bool) {
	w, a := q.w, s.a
	what, title := "build_command failed", "Approve --all: build_command failed on this task's rebased commits"
	if n := len(a.runs); n > 0 && a.runs[n-1].Name == "checks" {
		what = "the forge's checks failed on " + landforge.QueueBranch(s.e.ID)
		title = "Approve --all: the forge's checks failed on this task's rebased commits (queue_ci: forge)"
		a.redChecks = s.failedChecks
	}
	res, err := w.Run(workflow.Transition{Verb: "approve", ID: s.e.ID, From: []workflow.Bucket{workflow.QA}, To: workflow.Ready,
		Message: "approve " + s.e.ID,
		Apply: func(tx *workflow.Tx) error {
			why := what + " once this task was stacked on main"
			if bisected {
				why += " (approve --all bisected the batch to it)"
			}
			a.rejectRed(w, tx, title, why)
			return nil
		}})
	// Its branch stays where the build failed, for its worker.
	dropIntent(w, s.e.ID)
	if err != nil {
		q.fail(s.e.ID, err)
		return
	}
	if bisected {
		what += " (bisected to it)"
	}
	q.failed(s.e.ID, what+"; "+qa.Outcome(res.Entry), int(errs.Validation))
}

// rejectRed rejects the task of tx (V1's reject: READY, qa_attempts+1)
// for a build or forge checks that failed on a.merged, with the runs in
// its QA report and, for checks, the failed checks and their logs; a
// round of failed checks counts toward ci_max_rounds.
func (a *approval) rejectRed(w *workflow.Workflow, tx *workflow.Tx, title, why string) {
	runs, extra := a.runs, []string(nil)
	if n := len(runs); n > 0 && runs[n-1].Name == "checks" {
		last := runs[n-1]
		extra = last.Tail
		last.Tail = nil
		runs = append(runs[:n-1:n-1], last)
	}
	lines := strings.Split(strings.TrimRight(qa.Report(title, tx.Now, w.Actor, a.base, a.merged, nil, runs), "\n"), "\n")
	qa.Reject(w, tx, why, append(lines, extra...))
	tx.Action = "reject"
	tx.Details["cause"] = "build"
	if extra != nil {
		landforge.CIRound(w, tx, "queue", a.redChecks)
	}
}

// undoLocalMain moves local main back off a's fast-forward when a landing
// did not happen: main still at a's rebased commit, which the remote's
// main does not hold.
func (q *queue) undoLocalMain(a *approval) {
	g := q.w.Repo.Git
	main, err := g.Run("rev-parse", "-q", "--verify", "refs/heads/"+q.w.Config.MainBranch)
	if err != nil || main != a.merged || a.base == "" || a.merged == a.base {
		return
	}
	if q.w.Config.Remote != "" {
		if ok, _ := g.Test("merge-base", "--is-ancestor", a.merged, gitx.Tracking(q.w.Config.Remote, q.w.Config.MainBranch)); ok {
			return
		}
	}
	if err := q.m.Rewind(a.merged, a.base); err != nil {
		fmt.Fprintf(q.w.Stderr, "burl: warning: %s stays at %s after a landing that did not happen: %v\n", q.w.Config.MainBranch, gitx.Short(a.merged), err)
	}
}
