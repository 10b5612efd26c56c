package verb

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/taskgate"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Approve is `git burl approve`: what cmd/git-burl-approve runs. Only the
// verbs a binary names are linked into it.
func Approve() cli.Command { return &approveCmd{} }

type approveCmd struct {
	cli.JSONFlag
	All bool `long:"all" description:"Approve every QA task in queue order, building batches of queue_batch tasks at once"`
	// AcceptLanded is the human's answer to work that reached main
	// without burl's approve (DESIGN §15).
	AcceptLanded bool `long:"accept-landed" description:"Accept a QA task whose work reached main outside burl (a hand merge): the gates run on its commits and main's tree, then DONE"`
}

type approveOut struct {
	Task   map[string]any `json:"task"`
	Merged string         `json:"merged_sha"`
	Main   string         `json:"main_branch"`
	Drift  int            `json:"drift"`
	Pushed bool           `json:"pushed"`
	// Recovered: the work was already in main (an approve interrupted after
	// it advanced main); this approve only finished the bookkeeping.
	Recovered bool `json:"recovered"`
	// AlreadyDone: the task was DONE before this approve, which only
	// finished its cleanup (merged_sha is then empty).
	AlreadyDone bool `json:"already_done"`
	// AcceptedLanded: --accept-landed recorded work that reached main
	// outside burl, after the gates passed on it.
	AcceptedLanded bool `json:"accepted_landed"`
	// PR: with landing: pr, the pull request approve opened or updated;
	// the task stays in QA until the forge merges it.
	PR     *prRef `json:"pr,omitempty"`
	prAuto bool
	entry  workflow.Entry
}

func (o approveOut) Human(w io.Writer) {
	if o.PR != nil {
		fmt.Fprintf(w, "Opened pull request #%d for %s: %s\n", o.PR.Number, o.entry.ID, o.PR.URL)
		fmt.Fprintf(w, "The gates passed on %s rebased onto %s (drift: %d commit(s)); pushed %s\n", o.entry.Task.Branch(), o.Main, o.Drift, o.entry.Task.Branch())
		how := "a human merges it on the forge"
		if o.prAuto {
			how = "the forge merges it when its checks pass (pr_merge: auto)"
		}
		fmt.Fprintf(w, "%s stays in QA until %s; git burl sync then records DONE\n", o.entry.ID, how)
		return
	}
	if o.AlreadyDone {
		fmt.Fprintf(w, "%s is already DONE; removed what was left of its worktree and branch\n", o.entry.ID)
		return
	}
	if o.AcceptedLanded {
		fmt.Fprintf(w, "Accepted %s: its work landed in %s outside burl (%s holds it) and the gates passed on it\nQA → DONE\n", o.entry.ID, o.Main, gitx.Short(o.Merged))
		return
	}
	if o.Recovered {
		fmt.Fprintf(w, "Approved %s: its work was already in %s at %s (an interrupted approve is finished now)\nQA → DONE\n", o.entry.ID, o.Main, gitx.Short(o.Merged))
		return
	}
	fmt.Fprintf(w, "Approved %s: %s fast-forwarded to %s (drift: %d commit(s) on %s since claim)", o.entry.ID, o.Main, gitx.Short(o.Merged), o.Drift, o.Main)
	if o.Pushed {
		fmt.Fprint(w, ", pushed")
	}
	fmt.Fprintf(w, "\nQA → DONE; worktree and branch removed\n")
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
}

func (c *approveCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if c.All {
		if len(args) > 0 {
			return nil, usageErr("approve", "takes no task ID with --all")
		}
		if c.AcceptLanded {
			return nil, usageErr("approve", "--accept-landed takes one task ID, not --all")
		}
		w, err := open(ctx)
		if err != nil {
			return nil, err
		}
		if w.Config.Landing == "pr" {
			return approveAllPR(ctx, w)
		}
		return approveAll(ctx, w)
	}
	id, err := taskArg(args, "approve")
	if err != nil {
		return nil, err
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	return approveTask(ctx, w, id, c.AcceptLanded)
}

// approveOne is single approve of one task.
func approveOne(ctx *cli.Context, w *workflow.Workflow, id string) (approveOut, error) {
	return approveTask(ctx, w, id, false)
}

// approveTask is approveOne, or with acceptLanded the --accept-landed of
// work already in main.
func approveTask(ctx *cli.Context, w *workflow.Workflow, id string, acceptLanded bool) (approveOut, error) {
	// Approving a DONE task again finishes what a crash after the commit of
	// DONE left: the worktree and branch. Nothing else is redone.
	if e, err := w.Get(id); err == nil && e.Bucket == workflow.Done {
		if integrate.Unpublished(w) {
			// Killed after its commit, before its push: push it now, as
			// the next transition would; when the remote's main moved on,
			// that pull drops this DONE and the approve starts again.
			if err := pushStranded(w); err != nil {
				return approveOut{}, err
			}
			if e, err := w.Get(id); err == nil && e.Bucket == workflow.QA {
				return approveTask(ctx, w, id, acceptLanded)
			}
		}
		// A crash between the local fast-forward and the push leaves main
		// in this clone only: finishing the approve finishes its push.
		if m := integrate.For(w); pushesMain(w) && m.HasRemote() {
			if _, err := m.PushAhead(); err != nil {
				return approveOut{}, err
			}
		}
		dropIntent(w, id)
		cleanup(w, e.Task)
		return approveOut{Task: taskObject(w, *e), Main: w.Config.MainBranch, Recovered: true, AlreadyDone: true, entry: *e}, nil
	} else if err == nil {
		if w.Config.MergeStrategy != "manual" {
			// An uncommitted gate input is named first: trusting it
			// would not make the gates read it.
			if err := w.CheckConfigInput(); err != nil {
				return approveOut{}, err
			}
			if err := trust.Check(w.Repo, qa.Commands(w, e.Task, e.Path, "build", "verify")...); err != nil {
				return approveOut{}, err
			}
		}
		if err := qa.ForQA(w, e); err != nil {
			return approveOut{}, err
		}
		if w.Config.Landing == "pr" && !acceptLanded {
			return approvePR(w, id)
		}
	}
	a := &approval{acceptLanded: acceptLanded}
	// A closure: integrate sets mainLock later.
	defer func() { _ = a.mainLock.Release() }()
	res, err := w.Run(workflow.Transition{
		Verb: "approve", ID: id, From: []workflow.Bucket{workflow.QA}, To: workflow.Done,
		Message: "approve " + id,
		Prepare: func(tx *workflow.Tx) error { return a.integrate(w, tx) },
		Apply:   func(tx *workflow.Tx) error { a.record(w, tx); return nil },
	})
	if err != nil {
		return approveOut{}, err
	}
	if err := a.refusal(w, id, res); err != nil {
		return approveOut{}, err
	}
	// Only now that DONE is committed: until then a failure rolls main back
	// and the branch must stay for the task to remain approvable.
	_ = a.mainLock.Release()
	dropIntent(w, id)
	wt := w.WorktreePath(res.Entry.Task)
	cleanup(w, res.Entry.Task)
	faults.CrashPoint("approve", "cleanup")
	if _, err := os.Stat(wt); wt != "" && err != nil && within(ctx.Dir, wt) {
		ctx.Warnf("this shell stands in %s, which approve just removed with the task's worktree (the work is on %s): cd %s",
			ctx.Dir, w.Config.MainBranch, w.Repo.Root)
	}
	return approveOut{Task: taskObject(w, res.Entry), Merged: a.merged, Main: w.Config.MainBranch, Drift: a.drift, Pushed: a.pushed,
		Recovered: a.recovered && !a.accepted, AcceptedLanded: a.accepted, entry: res.Entry}, nil
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
	if a.mainLock, err = lockMain(w, tx.Now); err != nil {
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
	return a.land(w, tx, m)
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
	if dirty, _, err := workspace.Uncommitted(g); err != nil {
		return "", gitx.Git{}, err
	} else if dirty != "" {
		return "", gitx.Git{}, errs.New(errs.User, "the worktree %s has uncommitted changes:\n%s", w.Rel(dir), indentLines(dirty)).
			WithFix("commit or remove them; approve merges only submitted commits")
	}
	head, err := g.Run("rev-parse", "HEAD")
	if err != nil {
		return "", gitx.Git{}, err
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

// lockMain takes the main lock for an approve (single or queue).
func lockMain(w *workflow.Workflow, now time.Time) (*lock.Lock, error) {
	return w.Locks.AcquireWait(lock.Main, lock.Info{Owner: w.Actor, Host: w.Host, PID: os.Getpid(), CreatedAt: now, Action: "approve"}, 5*time.Minute)
}

// restoreBranch puts the task branch back at submitted_sha, where every
// approve that does not land leaves it.
func restoreBranch(g gitx.Git, t *task.Task) error {
	_, err := g.Run("reset", "-q", "--hard", t.Str(task.KeySubmittedSHA))
	return err
}

// rebase puts the task's commits on a.base as merge_strategy says and sets
// a.merged, or a.conflict when they do not apply. done: nothing is left
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
		if err := integrate.Rebase(g, a.base); err != nil {
			if c, ok := err.(*integrate.Conflict); ok {
				a.conflict = c
				return true, nil
			}
			return true, err
		}
		faults.CrashPoint("approve", "rebase")
	}
	a.merged, err = g.Run("rev-parse", "HEAD")
	return err != nil, err
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
	if err := integrate.RecordIntent(w.Repo.CommonDir, integrate.Intent{Task: t.ID(), Submitted: t.Str(task.KeySubmittedSHA), Base: a.base, Merged: a.merged,
		Actor: w.Actor, Host: w.Host, PID: os.Getpid(), CreatedAt: tx.Now}); err != nil {
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
func (a *approval) record(w *workflow.Workflow, tx *workflow.Tx) {
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
	case len(a.failed) > 0:
		tx.To = workflow.QA
		title := "Approve FAIL (after rebase)"
		if a.acceptLanded {
			title = fmt.Sprintf("Approve --accept-landed FAIL (the work as it is in %s)", w.Config.MainBranch)
		}
		tx.Task.AppendToSection("QA Report", qa.Report(title, tx.Now, w.Actor, a.base, a.merged, a.diff, a.runs))
		tx.Details["result"] = "fail"
	default:
		t := tx.Task
		t.SetTime(task.KeyCompletedAt, tx.Now)
		// Landed here, not through the pull request an earlier
		// landing: pr opened: the task must not read as merged by it.
		for _, k := range []string{task.KeyPRURL, task.KeyPRNumber, task.KeyPRHead} {
			if t.Has(k) {
				t.SetNull(k)
			}
		}
		if a.accepted {
			t.AppendToSection("QA Report", qa.Report(fmt.Sprintf("Approved — accepted as it landed in %s outside burl, at %s (git burl approve --accept-landed)", w.Config.MainBranch, gitx.Short(a.merged)),
				tx.Now, w.Actor, t.BaseSHA(), t.Str(task.KeySubmittedSHA), a.diff, a.runs))
			tx.Details["accepted_landed"] = true
		} else if a.recovered {
			t.AppendToSection("QA Report", fmt.Sprintf("### Approved — already in %s at %s — %s by %s\n\n- the commits were in %s already (an approve interrupted after it advanced %s), so no rebase, gate or merge ran again\n",
				w.Config.MainBranch, gitx.Short(a.merged), tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor, w.Config.MainBranch, w.Config.MainBranch))
			tx.Details["recovered"] = true
		} else {
			t.AppendToSection("QA Report", qa.Report(fmt.Sprintf("Approved — merged into %s as %s (drift %d)", w.Config.MainBranch, gitx.Short(a.merged), a.drift),
				tx.Now, w.Actor, a.base, a.merged, a.diff, a.runs))
		}
		tx.Details["merged_sha"] = a.merged
		tx.Details["base"] = a.base
		tx.Details["drift"] = a.drift
		tx.Details["pushed"] = a.pushed
		if a.pushMain != "" {
			tx.PushRefs = append(tx.PushRefs, a.pushMain)
		}
	}
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}
