package workflow

import (
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/remote"
)

// A mutation with workflow_auto_push is pull → change → commit → push, the
// remote's ref update its compare-and-swap (package remote moves the
// branch): a lost push drops the commit, pulls, and redoes the change.

// maxPushAttempts bounds how often a mutation is redone after lost pushes.
const maxPushAttempts = 8

// LostError is a mutation that lost the race on the remote and was undone
// locally; nothing of it remains.
type LostError struct {
	Reason string
}

func (e *LostError) Error() string { return e.Reason }

// Undone marks errors after which the mutation left nothing behind.
func (e *LostError) Undone() bool { return true }

// RefusedError is a push the remote (or a hook) refused on purpose; the
// mutation was undone locally, as for a lost race.
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// Undone: see LostError.
func (e *RefusedError) Undone() bool { return true }

// ErrKind: a refused push is a git failure (exit 3).
func (e *RefusedError) ErrKind() errs.Kind { return errs.Git }

// ErrKind: losing a race is a lock failure (exit 4).
func (e *LostError) ErrKind() errs.Kind { return errs.Lock }

// Mutate runs one change of workflow state under the workflow lock. change
// does the edits and commits them (returning the commit and any other
// refspecs to push atomically with it). With auto-push it runs on top of a
// fresh pull and its commit is pushed; when the push loses, the commit is
// dropped and change runs again on the new state, up to maxPushAttempts.
// change must therefore derive everything from the files it reads.
func (w *Workflow) Mutate(action string, change func(attempt int) (commit string, extra []string, err error)) error {
	return w.mutate(action, false, change)
}

// pulled is a view of the remote's workflow branch this process has: the
// local tip it left, the refspecs strandedApproves asked to carry along
// with the next push, when, and whether that pull brought commits the
// local branch lacked (busy: another clone pushed since this one did).
type pulled struct {
	head  string
	carry []string
	at    time.Time
	busy  bool
}

// mutate is Mutate; with reuse its first attempt stands on this process's
// view of the remote from a moment ago (fresh) instead of pulling again,
// when the local branch has not moved since: a transition pulls once for
// its check and once for its commit otherwise, two round trips where one
// does (DESIGN §28). The push stays the compare-and-swap: when the remote
// moved meanwhile it loses, and the next attempt pulls. A busy remote
// (another clone had pushed since this one last did) is pulled again
// before the commit: there a view as old as a claim's checkout or a
// submit's gates loses its push more often than not, and a lost push
// costs a fetch, a push and the change again.
func (w *Workflow) mutate(action string, reuse bool, change func(attempt int) (commit string, extra []string, err error)) error {
	for attempt := 1; ; attempt++ {
		wl, err := w.LockWorkflow(action)
		if err != nil {
			return err
		}
		push := w.AutoPush()
		var pre string
		var carry []string
		if push {
			if pre, carry, err = w.pullFor(reuse && attempt == 1); err != nil {
				wl.Release()
				return err
			}
		}
		w.emitted = nil
		commit, extra, err := change(attempt)
		if err != nil || !push || commit == "" {
			wl.Release()
			if err == nil {
				w.notify()
			}
			return err
		}
		for _, c := range carry {
			if !pushesRef(extra, c) {
				extra = append(extra, c)
			}
		}
		f0 := w.fresh
		w.fresh = nil
		busy := f0 != nil && f0.busy
		res, perr := w.push(commit, extra)
		if res == pushWon {
			w.fresh = &pulled{head: commit, at: time.Now(), busy: busy}
			wl.Release()
			w.notify()
			return nil
		}
		// Drop our commit (and only ours: unpushed commits from before stay
		// and are replayed by the next pull).
		if _, rerr := w.gitWT().Run("reset", "-q", "--hard", pre); rerr != nil {
			wl.Release()
			return errors.Join(perr, rerr)
		}
		if rerr := w.materialize(commit, pre); rerr != nil {
			wl.Release()
			return errors.Join(perr, rerr)
		}
		wl.Release()
		if res == pushRefused {
			return &errs.Error{Kind: errs.Git, Title: "Cannot push the workflow branch to " + w.Config.Remote,
				Reason: perr.Error(), Err: &RefusedError{Err: perr},
				Fix: "nothing was changed; fix what refused the push, then run the command again"}
		}
		if res == pushLostRef || attempt >= maxPushAttempts {
			return &LostError{Reason: fmt.Sprintf("%s: another machine moved %s first (%v); nothing was changed", action, w.Config.Remote, perr)}
		}
		// Jitter keeps losers from colliding again in lockstep.
		time.Sleep(time.Duration(20+rand.Intn(80*attempt)) * time.Millisecond)
	}
}

// pullFor brings the local workflow branch up to the remote's for one
// attempt of a mutation and returns the tip to go back to when its push
// loses, and the refspecs to carry with that push. With reuse, a fresh
// view of the remote on an unmoved local branch stands in for the pull.
func (w *Workflow) pullFor(reuse bool) (pre string, carry []string, err error) {
	if pre, err = w.gitWT().Run("rev-parse", "HEAD"); err != nil {
		return "", nil, err
	}
	if f := w.fresh; reuse && f != nil && !f.busy && f.head == pre && time.Since(f.at) < freshFor {
		return pre, f.carry, nil
	}
	w.fresh = nil
	pr, err := w.PullWorkflow()
	if err != nil {
		return "", nil, err
	}
	head := pr.After
	if pr.Ahead > 0 {
		if carry, err = w.strandedApproves(pr); err != nil {
			return "", nil, err
		}
		if pre, err = w.gitWT().Run("rev-parse", "HEAD"); err != nil {
			return "", nil, err
		}
		head = pre
	}
	w.fresh = &pulled{head: head, carry: carry, at: time.Now(), busy: pr.Pulled()}
	return pre, carry, nil
}

// The workflow branch's moves to and from the remote are package
// remote's; these names keep the workflow's callers as they were.

// ErrPushRejected is in the chain of a push refused because a branch on
// the remote moved on: the caller may pull and try again.
var ErrPushRejected = remote.ErrPushRejected

// PullResult is what PullWorkflow found and did.
type PullResult = remote.PullResult

type pushResult = remote.PushResult

const (
	pushWon     = remote.PushWon
	pushLostRef = remote.PushLostRef
	pushRefused = remote.PushRefused
	freshFor    = remote.FreshFor
)

// remoteBranch is the workflow branch, for its moves to and from the remote.
func (w *Workflow) remoteBranch() *remote.Branch {
	return &remote.Branch{Repo: w.Repo, Config: w.Config, Dir: w.Dir, Git: w.gitWT(), Stderr: w.Stderr,
		Sparse: w.sparseTree(), MainFetched: &w.mainFetched}
}

// AutoPush reports whether mutations are pushed as they happen.
func (w *Workflow) AutoPush() bool { return w.remoteBranch().AutoPush() }

// HasRemote reports whether the configured remote exists in this clone.
func (w *Workflow) HasRemote() bool { return w.remoteBranch().HasRemote() }

// FetchRemoteBranch fetches branch from the configured remote into its
// remote-tracking ref and returns the remote's tip ("" when it has none).
func (w *Workflow) FetchRemoteBranch(branch string, extra ...string) (string, error) {
	return w.remoteBranch().FetchRemoteBranch(branch, extra...)
}

// FreshMain reports whether this process fetched the remote's main with
// the workflow branch a moment ago.
func (w *Workflow) FreshMain() bool { return w.remoteBranch().FreshMain() }

// PullWorkflow brings the local workflow branch up to the remote's
// (remote.Branch.PullWorkflow).
func (w *Workflow) PullWorkflow() (*PullResult, error) { return w.remoteBranch().PullWorkflow() }

// AbortStaleRebase undoes the replay of a pull killed midway.
func (w *Workflow) AbortStaleRebase() error { return w.remoteBranch().AbortStaleRebase() }

// PushWorkflow pushes the workflow branch and the extra refspecs in one
// atomic push.
func (w *Workflow) PushWorkflow(extra ...string) error {
	return w.remoteBranch().PushWorkflow(extra...)
}

// StrandedMerged is the newest merged_sha of this clone's approves that the
// remote's workflow branch does not have yet.
func (w *Workflow) StrandedMerged() (string, error) { return w.remoteBranch().StrandedMerged() }

// SettleStranded does to this clone's unpushed workflow commits what the
// next transition's pull does, for doctor's repair.
func (w *Workflow) SettleStranded() ([]string, error) { return w.remoteBranch().SettleStranded() }

// Divergence is how the local workflow branch relates to the remote's.
func (w *Workflow) Divergence() (ahead, behind int, ok bool) { return w.remoteBranch().Divergence() }

func (w *Workflow) strandedApproves(pr *PullResult) ([]string, error) {
	return w.remoteBranch().StrandedApproves(pr)
}

func (w *Workflow) push(commit string, extra []string) (pushResult, error) {
	return w.remoteBranch().Push(commit, extra)
}

func pushesRef(refspecs []string, c string) bool { return remote.PushesRef(refspecs, c) }
