// Package land is the one home of landing (DESIGN §21): approve, the
// merge queue (approve --all), opening pull requests (landing: pr),
// accepting work that landed outside burl, and the cleanup after a task
// is DONE. Each verb has one entry point here (Approve, AcceptLanded,
// ApproveAll) returning a result value; pkg/verb keeps the options and
// the rendering. The git mechanics of moving main (fast-forward,
// compare-and-swap, rewind, the approve intent) are pkg/integrate's, and
// the forge's provider and checks pkg/landforge's, below this package;
// settling the pull requests is pkg/landsync's, above it.
//
// A task becomes DONE in one place, done(), inside the transition that
// lands it: approve and the queue (record), a merged pull request
// (landsync's applySettlement, through Done) and --accept-landed all
// call it.
package land

import (
	"fmt"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/landforge"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/taskgate"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Result is what one approve did: approve --json's document is built
// from it.
type Result struct {
	Entry  workflow.Entry
	Merged string
	Main   string
	Drift  int
	Pushed bool
	// Recovered: the work was already in main (an approve interrupted after
	// it advanced main); this approve only finished the bookkeeping.
	Recovered bool
	// AlreadyDone: the task was DONE before this approve, which only
	// finished its cleanup (Merged is then empty).
	AlreadyDone bool
	// AcceptedLanded: --accept-landed recorded work that reached main
	// outside burl, after the gates passed on it.
	AcceptedLanded bool
	// PR: with landing: pr, the pull request approve opened or updated;
	// the task stays in QA until the forge merges it. PRAuto: the forge
	// was asked to merge it when its checks pass (pr_merge: auto).
	PR     *PR
	PRAuto bool
	// PRAskedAtOpen: the forge's merge-when-checks-pass was asked as the
	// request opened; with PRAuto and not this, burl asks once the checks
	// it waits for passed (DESIGN §21).
	PRAskedAtOpen bool
	// Removed is the task's worktree, which landing removed ("" when it
	// had none here): a shell standing in it is left in a deleted directory.
	Removed string
	// ReviewOverridden: a human approved the task past the review gate;
	// why the gate held.
	ReviewOverridden string
}

// approval is what approve's git work found, for Apply and the result.
type approval struct {
	conflict *integrate.Conflict
	failed   gate.Violations
	diff     gate.Violations
	runs     []gate.RunResult
	base     string
	merged   string
	pushMain string
	drift    int
	pushed   bool
	mainLock *lock.Lock
	// recovered: the work was found in main already (see finishMerged).
	recovered bool
	// acceptLanded: --accept-landed; accepted once its gates passed.
	acceptLanded, accepted bool
	// onMain and stackedOn: in approve --all, main's commit under the
	// batch and the tasks stacked on it before this one (base is then a
	// commit main never was).
	onMain    string
	stackedOn []string
	// builtOn: in approve --all, the commit the batch's build ran on (the
	// top of the stack), which the landing record names.
	builtOn string
	// overridden: a human approved past the review gate (why it held).
	overridden string
	// squashed: merge_strategy squash made the task one commit, merged,
	// of the rebased commits ending at rebased.
	squashed bool
	rebased  string
	// redChecks names the forge's checks that failed on the candidate a
	// single approve pushed (queue_ci: forge); its run is the last of runs.
	redChecks string
}

// Approve is `git burl approve ID`: PRD 14.4 for one QA task (with
// landing: pr, the pull request instead of the fast-forward). Approving a
// DONE task again finishes the cleanup a crash left.
func Approve(w *workflow.Workflow, id string) (Result, error) {
	return approve(w, id, byHuman)
}

// AcceptLanded is `git burl approve --accept-landed ID`: the human's
// answer to work that reached main without burl's approve (DESIGN §15).
// The gates run on its commits and main's tree; DONE when they pass.
func AcceptLanded(w *workflow.Workflow, id string) (Result, error) {
	return approve(w, id, acceptingLanded)
}

// How an approve was asked for.
type approveMode int

const (
	// byQueue: approve --all, one task of the queue (which left the tasks
	// the review gate holds out of it).
	byQueue approveMode = iota
	// byHuman: `git burl approve ID`, which may override the review gate.
	byHuman
	// acceptingLanded: --accept-landed, of work already in main.
	acceptingLanded
)

// approve is Approve, AcceptLanded, or one task of the queue.
func approve(w *workflow.Workflow, id string, mode approveMode) (Result, error) {
	if err := landforge.TrustedChecks(w); err != nil {
		return Result{}, err
	}
	acceptLanded := mode == acceptingLanded
	// overridden: a human approves past the review gate, and why it held.
	var overridden string
	// Approving a DONE task again finishes what a crash after the commit of
	// DONE left: the worktree and branch. Nothing else is redone.
	if e, err := w.Get(id); err == nil && e.Bucket == workflow.Done {
		if integrate.Unpublished(w) {
			// Killed after its commit, before its push: push it now, as
			// the next transition would; when the remote's main moved on,
			// that pull drops this DONE and the approve starts again.
			if err := pushStranded(w); err != nil {
				return Result{}, err
			}
			if e, err := w.Get(id); err == nil && e.Bucket == workflow.QA {
				return approve(w, id, mode)
			}
		}
		// A crash between the local fast-forward and the push leaves main
		// in this clone only: finishing the approve finishes its push.
		if m := integrate.For(w); pushesMain(w) && m.HasRemote() {
			if _, err := m.PushAhead(); err != nil {
				return Result{}, err
			}
		}
		dropIntent(w, id)
		cleanup(w, e.Task)
		return Result{Entry: *e, Main: w.Config.MainBranch, Recovered: true, AlreadyDone: true}, nil
	} else if err == nil {
		// With landing: pr a child's request opens onto its parent's
		// while the parent's is open (prTarget).
		if err := stack.Landable(w, e.Task); err != nil && !acceptLanded && parentPR(w, e.Task) == nil {
			return Result{}, err
		}
		if w.Config.MergeStrategy != "manual" {
			// An uncommitted gate input is named first: trusting it
			// would not make the gates read it.
			if err := w.CheckConfigInput(); err != nil {
				return Result{}, err
			}
			if err := trust.Check(w.Repo, qa.Commands(w, e.Task, e.Path, "build", "verify")...); err != nil {
				return Result{}, err
			}
		}
		if e.Bucket == workflow.QA && w.Config.MergeStrategy != "manual" {
			if why := elsewhere(w, e.Task); why != "" {
				// Not the work's: nothing here to approve (DESIGN §25).
				return Result{}, errs.New(errs.User, "%s %s", id, why).
					WithFix("approve it in the clone that submitted it, or push its branch there (git push %s %s) and run this again", w.Config.Remote, e.Task.Branch())
			}
		}
		if err := qa.ForQA(w, e); err != nil {
			return Result{}, err
		}
		if overridden, err = reviewed(w, e.Task, mode); err != nil {
			return Result{}, err
		}
		if w.Config.Landing == "pr" && !acceptLanded {
			return approvePR(w, id, overridden)
		}
	}
	a := &approval{acceptLanded: acceptLanded, overridden: overridden}
	// A closure: integrate sets mainLock later.
	defer func() { _ = a.mainLock.Release() }()
	res, err := w.Run(workflow.Transition{
		Verb: "approve", ID: id, From: []workflow.Bucket{workflow.QA}, To: workflow.Done,
		Message: "approve " + id,
		Prepare: func(tx *workflow.Tx) error { return a.integrate(w, tx) },
		Apply:   func(tx *workflow.Tx) error { return a.record(w, tx) },
	})
	if err != nil {
		return Result{}, err
	}
	if err := a.refusal(w, id, res); err != nil {
		return Result{}, err
	}
	// Only now that DONE is committed: until then a failure rolls main back
	// and the branch must stay for the task to remain approvable.
	_ = a.mainLock.Release()
	dropIntent(w, id)
	wt := w.WorktreePath(res.Entry.Task)
	cleanup(w, res.Entry.Task)
	faults.CrashPoint("approve", "cleanup")
	restack(w, id, a.merged, func(l string) { fmt.Fprintf(w.Stderr, "burl: %s\n", l) })
	return Result{Entry: res.Entry, Merged: a.merged, Main: w.Config.MainBranch, Drift: a.drift, Pushed: a.pushed,
		Recovered: a.recovered && !a.accepted, AcceptedLanded: a.accepted, Removed: wt, ReviewOverridden: overridden}, nil
}

// integrate is PRD 14.4 steps 2-6: fetch, rebase, validate against the
// rebased base, fast-forward main, push. Step 7, cleanup, waits for the
// commit of DONE. Every failure leaves the task branch at submitted_sha.
// approve --all runs the same steps (branch, rebase, check, land) with the
// build batched over a stack of tasks.
func (a *approval) integrate(w *workflow.Workflow, tx *workflow.Tx) error {
	t := tx.Task
	if m := integrate.For(w); a.acceptLanded && m.HasRemote() {
		// What landed is on the remote's main (a forge's merge): local
		// main catches up first, fast-forward only.
		if _, err := m.Base(); err != nil {
			return err
		}
	}
	in, err := workAlreadyInMain(w, t)
	if err == nil && in && pushesMain(w) && integrate.For(w).HasRemote() {
		// The work may be in local main only, left there by an approve
		// killed before its push while the remote's main moved on: Base
		// then moves local main back to the remote's, and the approve is
		// redone rather than finished.
		if _, err := integrate.For(w).Base(); err != nil {
			return err
		}
		in, err = workAlreadyInMain(w, t)
	}
	if err != nil {
		return err
	}
	switch {
	case in && a.acceptLanded:
		return a.acceptLandedWork(w, tx)
	case a.acceptLanded:
		return errs.New(errs.User, "%s's work is not in %s, so there is nothing landed to accept", t.ID(), w.Config.MainBranch).
			WithFix("approve it the ordinary way: git burl approve %s", t.ID())
	case in && integrate.ReadIntent(w.Repo.CommonDir, t.ID()).Landed(w.Repo.Git, w.Config.MainBranch, t.Str(task.KeySubmittedSHA)):
		// This clone's approve recorded that it was moving main there,
		// and was interrupted before DONE: finish it.
		return a.finishMerged(w, t)
	case in:
		return landedOutside(w, t)
	}
	dir, g, err := approvableBranch(w, t)
	if err != nil {
		return err
	}
	// Approvals advance main one at a time on this machine. The lock is
	// held until DONE is committed (Run releases it): a rollback rewinds
	// main, which only works if no other approve has built on it meanwhile.
	if a.mainLock, err = w.LockMain(); err != nil {
		return err
	}
	m := integrate.ForLanding(w)
	if a.base, err = m.Base(); err != nil {
		return err
	}
	if done, err := a.rebase(w, t, g); err != nil || done {
		return err
	}
	tx.OnRollback(func() error { return restoreBranch(g, t) })
	if err := a.check(w, t, g, dir, tx.Now, true); err != nil {
		return err
	}
	if len(a.failed) > 0 {
		return restoreBranch(g, t)
	}
	if w.Config.CI.Queue == "forge" {
		// One task is a queue of one: main moves only to a candidate
		// whose checks passed, as approve --all's (DESIGN §21).
		if err := a.awaitChecks(w, t); err != nil {
			return err
		}
		if a.redChecks != "" {
			return restoreBranch(g, t)
		}
	}
	return a.land(w, tx, m)
}

// awaitChecks pushes the rebased task to its candidate branch, waits for
// the forge's checks there, and deletes the branch: the run joins a.runs,
// and what failed is a.redChecks.
func (a *approval) awaitChecks(w *workflow.Workflow, t *task.Task) error {
	ci, err := landforge.QueueChecker(w)
	if err != nil {
		return err
	}
	r, failed, pushed := landforge.CandidateChecks(w, ci, t.ID(), a.merged)
	if pushed {
		landforge.DeleteCandidates(w, []string{landforge.QueueBranch(t.ID())})
	}
	if !r.OK() && failed == "" {
		// Not the work's: the candidate could not be pushed.
		return errs.New(errs.Git, "%s", strings.Join(r.Tail, "; ")).WithFix("check the remote %s, then run git burl approve %s again", w.Config.Remote, t.ID())
	}
	a.runs = append(a.runs, r)
	a.redChecks = failed
	return nil
}

// workAlreadyInMain: an approve killed after it advanced main left the
// task in QA with its work in main, and maybe its worktree and branch
// removed. (merge_strategy manual expects main to hold the work; it takes
// the ordinary path.)
func workAlreadyInMain(w *workflow.Workflow, t *task.Task) (bool, error) {
	if w.Config.MergeStrategy == "manual" {
		return false, nil
	}
	return integrate.WorkInMain(w.Repo.Git, w.Config.MainBranch, t.BaseSHA(), t.Str(task.KeySubmittedSHA))
}

// approvableBranch checks that the task's worktree is clean with its
// branch at submitted_sha, undoing what an interrupted approve left, and
// returns the worktree and a git runner in it.
func approvableBranch(w *workflow.Workflow, t *task.Task) (string, gitx.Git, error) {
	submitted := t.Str(task.KeySubmittedSHA)
	// An approve killed mid-rebase left the worktree detached with the
	// rebase stopped: undo it (the branch is still at submitted) rather
	// than tell the user to switch branches, which git would refuse.
	if p := w.WorktreePath(t); p != "" {
		if aborted, err := integrate.AbortApproveRebase(gitx.In(p), t.Branch(), submitted); err != nil {
			return "", gitx.Git{}, err
		} else if aborted {
			fmt.Fprintf(w.Stderr, "burl: aborted the rebase an interrupted approve left in %s; starting again from %s\n", w.Rel(p), gitx.Short(submitted))
		}
	}
	dir, g, err := qa.Worktree(w, t)
	if err != nil {
		return "", gitx.Git{}, err
	}
	// Output of the builds burl ran here does not count: only the worker's
	// changes would be left out of what approve merges.
	dirty, _, head, err := workspace.UncommittedAt(g)
	if err != nil {
		return "", gitx.Git{}, err
	} else if dirty != "" {
		return "", gitx.Git{}, errs.New(errs.User, "the worktree %s has uncommitted changes:\n%s", w.Rel(dir), indentLines(dirty)).
			WithFix("commit or remove them; approve merges only submitted commits")
	}
	if head == "" {
		return "", gitx.Git{}, errs.New(errs.User, "the worktree %s has no commit checked out", w.Rel(dir)).
			WithFix("git -C %s checkout %s", dir, t.Branch())
	}
	if submitted != "" && head != submitted && integrate.RebasedFrom(g, t.Branch()) == submitted {
		// An approve killed after its rebase: the branch's reflog shows that
		// nothing but that rebase moved it, so start again from the
		// submitted commits (the worktree is clean, --keep loses nothing).
		if _, err := g.Run("reset", "-q", "--keep", submitted); err != nil {
			return "", gitx.Git{}, err
		}
		head = submitted
	}
	if submitted == "" || head != submitted {
		return "", gitx.Git{}, errs.New(errs.User, "%s is at %s but %s was submitted at %s; QA would approve code nobody validated", t.Branch(), gitx.Short(head), t.ID(), gitx.Short(submitted)).
			WithFix("git burl reject %s --reason \"changed after submit\", then claim and submit it again", t.ID())
	}
	return dir, g, nil
}

// pushStranded is integrate.PushStranded under the workflow lock.
func pushStranded(w *workflow.Workflow) error {
	wl, err := w.LockWorkflow("approve")
	if err != nil {
		return err
	}
	defer wl.Release()
	return integrate.PushStranded(w)
}

// pushesMain reports whether approve pushes main: push_main_on_approve,
// or workflow_auto_push, which publishes DONE at once and so must publish
// its work with it (DESIGN §15: DONE on the remote implies its work on the
// remote's main).
func pushesMain(w *workflow.Workflow) bool {
	return w.Config.PushMainOnApprove || w.AutoPush()
}

// restoreBranch puts the task branch back at submitted_sha, where every
// approve that does not land leaves it.
func restoreBranch(g gitx.Git, t *task.Task) error {
	_, err := g.Run("reset", "-q", "--hard", t.Str(task.KeySubmittedSHA))
	return err
}

// rebase puts the task's commits on a.base as merge_strategy says (squash:
// as one commit) and sets a.merged, or a.conflict when they do not apply. done: nothing is left
// to check or land (a conflict, or manual, where main holds the work).
func (a *approval) rebase(w *workflow.Workflow, t *task.Task, g gitx.Git) (done bool, err error) {
	submitted := t.Str(task.KeySubmittedSHA)
	switch w.Config.MergeStrategy {
	case "manual":
		if in, err := w.Repo.Git.Test("merge-base", "--is-ancestor", submitted, a.base); err != nil {
			return true, err
		} else if !in {
			return true, errs.New(errs.User, "merge_strategy is manual and %s does not contain %s yet", w.Config.MainBranch, gitx.Short(submitted)).
				WithFix("merge %s into %s yourself, then run git burl approve %s", t.Branch(), w.Config.MainBranch, t.ID())
		}
		a.merged = submitted
		a.drift = integrate.Drift(w.Repo.Git, t.BaseSHA(), a.base)
		return true, nil
	case "ff_only":
		if ok, err := w.Repo.Git.Test("merge-base", "--is-ancestor", a.base, submitted); err != nil {
			return true, err
		} else if !ok {
			a.conflict = &integrate.Conflict{Files: []string{"(non-fast-forward: " + w.Config.MainBranch + " moved since claim and merge_strategy is ff_only)"}}
			return true, nil
		}
	default:
		if err := rebaseOwn(w, t, g, a.base); err != nil {
			if c, ok := err.(*integrate.Conflict); ok {
				a.conflict = c
				return true, nil
			}
			return true, err
		}
		faults.CrashPoint("approve", "rebase")
		if w.Config.MergeStrategy == "squash" {
			if err := a.squash(w, t, g); err != nil {
				return true, err
			}
		}
	}
	a.merged, err = g.Run("rev-parse", "HEAD")
	return err != nil, err
}

// restack restacks the tasks stacked on id, which just landed as merged
// (with stack: true), telling each line.
func restack(w *workflow.Workflow, id, merged string, say func(string)) {
	if !w.Config.Stack {
		return
	}
	for _, l := range stack.Restack(w, id, merged) {
		say(l)
	}
}

// rebaseOwn rebases the task's commits onto base: for a task stacked on
// a parent that has landed since and that was not restacked (its branch
// still holds stack_base), only its own commits, with git rebase --onto
// (DESIGN §26); a plain rebase would replay the parent's too.
func rebaseOwn(w *workflow.Workflow, t *task.Task, g gitx.Git, base string) error {
	if sb := t.Str(task.KeyStackBase); sb != "" {
		own, _ := g.Test("merge-base", "--is-ancestor", sb, "HEAD")
		landed, _ := g.Test("merge-base", "--is-ancestor", sb, base)
		if own && !landed {
			return integrate.RebaseOnto(g, base, sb)
		}
	}
	return integrate.Rebase(g, base)
}

// check runs the scope and stub gates on the rebased range a.base..a.merged
// and the task's verify command, plus build_command when build is set
// (approve --all builds a stack of tasks at once instead).
func (a *approval) check(w *workflow.Workflow, t *task.Task, g gitx.Git, dir string, now time.Time, build bool) error {
	var err error
	if a.diff, err = taskgate.CheckRange(w, t, g, a.base, a.merged); err != nil {
		return err
	}
	which := []string{"verify"}
	if build {
		which = []string{"build", "verify"}
	}
	runs, cmdV, err := qa.Run(w, t, dir, now, which...)
	if err != nil {
		return err
	}
	a.runs = append(a.runs, runs...)
	a.failed = append(append(a.failed, a.diff...), cmdV...)
	return nil
}

// land fast-forwards main from a.base to a.merged and pushes it as
// push_main_on_approve says, registering the undo with tx.
func (a *approval) land(w *workflow.Workflow, tx *workflow.Tx, m integrate.Main) error {
	t := tx.Task
	// The intent first: only an approve that recorded it is finished by
	// the next one if this one dies after moving main.
	in := a.intent(w, t, tx.Now)
	if err := integrate.RecordIntent(w.Repo.CommonDir, in); err != nil {
		return fmt.Errorf("recording the approve's intent: %w", err)
	}
	tx.OnRollback(func() error { return integrate.DropIntent(w.Repo.CommonDir, t.ID()) })
	faults.CrashPoint("approve", "intent")
	if err := m.Advance(a.base, a.merged); err != nil {
		return err
	}
	tx.OnRollback(func() error { return m.Rewind(a.merged, a.base) })
	faults.CrashPoint("approve", "merge")
	if pushesMain(w) && m.HasRemote() {
		if w.AutoPush() {
			// Pushed with the workflow branch in one atomic push: main and
			// DONE land together or not at all.
			a.pushMain = a.merged + ":refs/heads/" + w.Config.MainBranch
		} else {
			if _, err := w.Repo.Git.Run("push", "-q", w.Config.Remote, a.merged+":refs/heads/"+w.Config.MainBranch); err != nil {
				if m.MovedFrom(a.base) {
					err = &mainMoved{remote: w.Config.Remote, main: w.Config.MainBranch, base: a.base, err: err}
				}
				return errs.Wrap(err, errs.Git, "Cannot push "+w.Config.MainBranch).
					WithFix("%s moved on %s meanwhile; run git burl approve %s again", w.Config.MainBranch, w.Config.Remote, t.ID())
			}
			faults.CrashPoint("approve", "push")
		}
		a.pushed = true
	}
	a.drift = integrate.Drift(w.Repo.Git, t.BaseSHA(), a.base)
	return nil
}

// mainMoved is a push of main that lost to another clone's: the remote's
// main is no longer the base the task was rebased on. Not the work's
// failure: the queue stages the task again on the new main.
type mainMoved struct {
	remote, main, base string
	err                error
}

func (e *mainMoved) Error() string {
	return fmt.Sprintf("%s's %s moved on from %s while this approve built on it (another clone landed first), so it refused the push", e.remote, e.main, gitx.Short(e.base))
}
func (e *mainMoved) Unwrap() error { return e.err }

// finishMerged completes an approve whose fast-forward already happened:
// it removes what is left of the worktree and branch, and the task is then
// recorded as DONE without another rebase or merge.
func (a *approval) finishMerged(w *workflow.Workflow, t *task.Task) error {
	g := w.Repo.Git
	main, err := g.Run("rev-parse", "refs/heads/"+w.Config.MainBranch)
	if err != nil {
		return err
	}
	a.recovered = true
	a.base, a.merged = main, main
	if tip, err := g.Run("rev-parse", "-q", "--verify", "refs/heads/"+t.Branch()); err == nil {
		if in, _ := g.Test("merge-base", "--is-ancestor", tip, main); in {
			a.merged = tip
		}
	}
	a.drift = integrate.Drift(g, t.BaseSHA(), main)
	// The killed approve may have advanced main without pushing it.
	if m := integrate.For(w); pushesMain(w) && m.HasRemote() {
		if w.AutoPush() {
			// Its own work, not what local main may hold beyond it.
			a.pushMain = a.merged + ":refs/heads/" + w.Config.MainBranch
		} else if _, err := m.PushAhead(); err != nil {
			return err
		}
		a.pushed = true
	}
	return nil
}

// record is PRD 14.4 steps 8-9 (or the reject that a conflict becomes).
func (a *approval) record(w *workflow.Workflow, tx *workflow.Tx) error {
	switch {
	case a.conflict != nil:
		var lines []string
		lines = append(lines, "Conflicting files:")
		for _, f := range a.conflict.Files {
			lines = append(lines, "- "+f)
		}
		onto := fmt.Sprintf("rebase conflict onto %s at %s", w.Config.MainBranch, gitx.Short(a.base))
		if len(a.stackedOn) > 0 {
			onto = fmt.Sprintf("rebase conflict onto %s at %s with %s stacked before it (approve --all)", w.Config.MainBranch, gitx.Short(a.onMain), strings.Join(a.stackedOn, ", "))
		}
		qa.Reject(w, tx, onto, lines)
		tx.Action = "reject"
		tx.Details["cause"] = "rebase conflict"
		tx.Details["files"] = a.conflict.Files
	case a.redChecks != "":
		a.rejectRed(w, tx, "Approve: the forge's checks failed on this task's rebased commits (queue_ci: forge)",
			"the forge's checks failed on "+landforge.QueueBranch(tx.Task.ID())+" once this task was rebased onto "+w.Config.MainBranch)
	case len(a.failed) > 0:
		tx.To = workflow.QA
		title := "Approve FAIL (after rebase)"
		if a.acceptLanded {
			title = fmt.Sprintf("Approve --accept-landed FAIL (the work as it is in %s)", w.Config.MainBranch)
		}
		tx.Task.AppendToSection("QA Report", qa.Report(title, tx.Now, w.Actor, a.base, a.merged, a.diff, a.runs))
		tx.Details["result"] = "fail"
		// The head they failed on: a sync retargets a stacked request
		// again only on a new one (gatesFailedOn).
		tx.Details["submitted_sha"] = tx.Task.Str(task.KeySubmittedSHA)
	default:
		t := tx.Task
		// Landed here, not through the pull request an earlier
		// landing: pr opened: the task must not read as merged by it.
		for _, k := range []string{task.KeyPRURL, task.KeyPRNumber, task.KeyPRHead} {
			if t.Has(k) {
				t.SetNull(k)
			}
		}
		var entry string
		if a.accepted {
			entry = qa.Report(fmt.Sprintf("Approved — accepted as it landed in %s outside burl, at %s (git burl approve --accept-landed)", w.Config.MainBranch, gitx.Short(a.merged)),
				tx.Now, w.Actor, t.BaseSHA(), t.Str(task.KeySubmittedSHA), a.diff, a.runs)
			tx.Details["accepted_landed"] = true
		} else if a.recovered {
			entry = fmt.Sprintf("### Approved — already in %s at %s — %s by %s\n\n- the commits were in %s already (an approve interrupted after it advanced %s), so no rebase, gate or merge ran again\n",
				w.Config.MainBranch, gitx.Short(a.merged), tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor, w.Config.MainBranch, w.Config.MainBranch)
			tx.Details["recovered"] = true
		} else {
			entry = qa.Report(fmt.Sprintf("Approved — merged into %s as %s (drift %d)", w.Config.MainBranch, gitx.Short(a.merged), a.drift),
				tx.Now, w.Actor, a.base, a.merged, a.diff, a.runs)
		}
		recordOverride(w, tx, a.overridden)
		tx.Details["base"] = a.base
		tx.Details["drift"] = a.drift
		tx.Details["pushed"] = a.pushed
		if a.pushMain != "" {
			tx.PushRefs = append(tx.PushRefs, a.pushMain)
		}
		l, err := a.landing(w, t)
		if err != nil {
			return err
		}
		return done(w, tx, a.merged, entry, l)
	}
	return nil
}

func indentLines(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
