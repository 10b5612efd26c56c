// Package remote moves the workflow branch to and from the git remote, the
// coordination engine (DESIGN §5): with workflow_auto_push every mutation
// is pull → change → commit → push, and the remote's ref update is the
// compare-and-swap. A rejected push means another machine moved the
// workflow first: the mutation drops its commit, pulls, and redoes the
// change against the new state (or gives up, exit 4).
package remote

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/notes"
)

// This file moves the workflow branch to and from the remote: the building
// blocks of `git burl sync` (pause here, resume elsewhere) and of
// workflow_auto_push. Callers hold the workflow lock, so nothing commits
// to the branch while it moves.

// ErrPushRejected is in the chain of a push refused because a branch on
// the remote moved on (another machine pushed first): the caller may pull
// and try again.
var ErrPushRejected = errors.New("the remote rejected the push because its branch moved on")

// HasRemote reports whether the configured remote exists in this clone.
func (w *Branch) HasRemote() bool { return w.Repo.HasRemote(w.Config.Remote) }

func (w *Branch) needRemote() error {
	if w.HasRemote() {
		return nil
	}
	return errs.New(errs.User, "this clone has no remote %q to sync with", w.Config.Remote).
		WithFix("git remote add %s URL, or set remote in %s", w.Config.Remote, w.Rel(filepath.Join(w.Dir, bucket.ConfigName)))
}

// PullResult is what PullWorkflow found and did.
type PullResult struct {
	Before string `json:"before"` // local tip before
	After  string `json:"after"`  // local tip after
	Remote string `json:"remote"` // the remote's tip; "" when the remote has no workflow branch yet
	// Ahead counts local commits the remote does not have (not pushed yet).
	Ahead int `json:"ahead"`
}

// Pulled reports whether the pull moved the local branch.
func (r *PullResult) Pulled() bool { return r.Before != r.After }

// FetchRemoteBranch fetches branch from the configured remote into its
// remote-tracking ref (with the extra refspecs, in the same fetch) and
// returns the remote's tip, or "" when the remote has no such branch.
func (w *Branch) FetchRemoteBranch(branch string, extra ...string) (string, error) {
	g, remote := w.Repo.Git, w.Config.Remote
	tracking := gitx.Tracking(remote, branch)
	if _, err := g.Run(gitx.Fetch(remote, append([]string{"+refs/heads/" + branch + ":" + tracking}, extra...)...)...); err != nil {
		// Tell "the remote has no such branch" (exit 2) from an unreachable remote.
		if _, lerr := g.Run("ls-remote", "--exit-code", "--heads", remote, "refs/heads/"+branch); gitx.ExitCodeOf(lerr) == 2 {
			return "", nil
		}
		return "", errs.Wrap(err, errs.Git, fmt.Sprintf("Cannot fetch %s from %s", branch, remote))
	}
	return g.Run("rev-parse", tracking)
}

// fetchWithMain is FetchRemoteBranch(branch) with the landing records and
// the remote's main in one fetch, and marks main fresh for this process
// (FreshMain). A remote without main (or without the workflow branch) fails
// that fetch: the workflow branch is then fetched alone, as before.
func (w *Branch) fetchWithMain(branch string) (string, error) {
	g, remote, main := w.Repo.Git, w.Config.Remote, w.Config.MainBranch
	specs := []string{"+refs/heads/" + branch + ":" + gitx.Tracking(remote, branch), notes.FetchSpec(remote)}
	if main != "" && main != branch {
		specs = append(specs, "+refs/heads/"+main+":"+gitx.Tracking(remote, main))
		if _, err := g.Run(gitx.Fetch(remote, specs...)...); err == nil {
			*w.MainFetched = time.Now()
			return g.Run("rev-parse", gitx.Tracking(remote, branch))
		}
	}
	return w.FetchRemoteBranch(branch, notes.FetchSpec(remote))
}

// FreshMain reports whether this process fetched the remote's main into
// its remote-tracking ref a moment ago, with the workflow branch: a
// transition's own fetch, which integrate does not repeat. A remote's main
// that moved since is found by the atomic push, which then loses.
func (w *Branch) FreshMain() bool {
	return !w.MainFetched.IsZero() && time.Since(*w.MainFetched) < FreshFor
}

// PullWorkflow fetches the workflow branch and brings the local one
// (checked out in the workflow worktree) up to the remote's: fast-forward
// when behind; local commits the remote lacks are kept (counted in Ahead);
// when both sides moved, the local commits are replayed on top of the
// remote's (the event log merges by union). A replay that conflicts is
// aborted: it fails (exit 3) naming both tips and changes nothing.
func (w *Branch) PullWorkflow() (*PullResult, error) {
	if err := w.needRemote(); err != nil {
		return nil, err
	}
	if err := w.AbortStaleRebase(); err != nil {
		return nil, err
	}
	g, branch, remote := w.Repo.Git, w.Repo.Branch, w.Config.Remote
	local, err := g.Run("rev-parse", "refs/heads/"+branch)
	if err != nil {
		return nil, err
	}
	res := &PullResult{Before: local, After: local}
	// The landing records travel with the workflow branch (DESIGN §22),
	// and main comes in the same round trip (DESIGN §28): the claim or
	// approve this pull is for needs it next.
	if res.Remote, err = w.fetchWithMain(branch); err != nil {
		return res, err
	}
	if err := w.mergeNotes(); err != nil {
		return res, err
	}
	if res.Remote == "" || res.Remote == local {
		return res, nil
	}
	if ahead, err := g.Test("merge-base", "--is-ancestor", res.Remote, local); err != nil {
		return nil, err
	} else if ahead {
		res.Ahead = countRange(g, res.Remote+".."+local)
		return res, nil
	}
	wt := w.gitWT()
	if behind, err := g.Test("merge-base", "--is-ancestor", local, res.Remote); err != nil {
		return nil, err
	} else if !behind {
		mine, theirs := countRange(g, res.Remote+".."+local), countRange(g, local+".."+res.Remote)
		if _, err := wt.Run("-c", "core.editor=true", "rebase", "-q", res.Remote); err != nil {
			_, _ = wt.Run("rebase", "--abort")
			if dropped, derr := w.dropConflictingStranded(local, res.Remote); derr != nil || dropped {
				if derr != nil {
					return nil, derr
				}
				res.After = res.Remote
				return res, nil
			}
			return nil, errs.New(errs.Git, "the workflow branch %s has %d local commit(s) that %s/%s lacks (local %s), and %s/%s has %d commit(s) that are not here (%s); replaying the local ones on top conflicts, so it cannot fast-forward",
				branch, mine, remote, branch, gitx.Short(local), remote, branch, theirs, gitx.Short(res.Remote)).
				WithTitle("Cannot pull the workflow branch").
				WithFix("resolve it by hand: git -C %s rebase %s/%s, fix the conflicts, git rebase --continue, then git burl sync",
					w.Rel(w.Repo.Worktree), remote, branch)
		}
		res.After, _ = wt.Run("rev-parse", "HEAD")
		res.Ahead = mine
		return res, w.materialize(local, res.After)
	}
	if _, err := wt.Run("merge", "--ff-only", "-q", res.Remote); err != nil {
		return nil, errs.Wrap(err, errs.Git, "Cannot fast-forward the workflow branch "+branch).
			WithFix("git burl doctor lists what is in the way in %s", w.Rel(w.Repo.Worktree))
	}
	res.After = res.Remote
	return res, w.materialize(local, res.After)
}

// AbortStaleRebase undoes the replay of a pull killed midway (kill -9
// during its rebase), which leaves the workflow worktree detached with
// conflict markers or half-replayed files. The caller holds the workflow
// lock, so no live pull owns that rebase; aborting it puts back the local
// branch as it was before the pull, which the next pull replays again.
func (w *Branch) AbortStaleRebase() error {
	wt := w.gitWT()
	p, err := wt.Run("rev-parse", "--git-path", "rebase-merge")
	if err != nil {
		return err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Repo.Worktree, p)
	}
	if _, err := os.Stat(p); err != nil {
		return nil
	}
	if _, err := wt.Run("rebase", "--abort"); err != nil {
		// Files written over the half-done replay stand in the way: the
		// branch was never moved by it, so go back to the branch as it is.
		head, rerr := os.ReadFile(filepath.Join(p, "head-name"))
		if rerr != nil {
			return err
		}
		for _, args := range [][]string{{"rebase", "--quit"}, {"symbolic-ref", "HEAD", strings.TrimSpace(string(head))}, {"reset", "-q", "--hard"}} {
			if _, err := wt.Run(args...); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(w.Stderr, "burl: warning: aborted the replay of a pull that was killed midway in %s; the workflow branch is back as it was before that pull\n", w.Rel(w.Repo.Worktree))
	return nil
}

// dropConflictingStranded settles a pull whose replay conflicts, with
// workflow_auto_push, when every local-only commit is a transition of
// burl's that a command killed before its push left here (a claim, a
// doctor repair, ...): the remote, the compare-and-swap between machines,
// never took them and has overtaken them since (the task claimed or moved
// elsewhere). Replayed they would undo that, kept they would stop every
// later pull: they are dropped, the transitions did not happen, and doctor
// judges what they left (a branch, a worktree). A hand commit, or an add
// (a task's text exists nowhere else), keeps the error for a human.
func (w *Branch) dropConflictingStranded(local, remote string) (bool, error) {
	if !w.AutoPush() {
		return false, nil
	}
	subjects, err := w.Repo.Git.Run("log", "--format=%s", remote+".."+local)
	if err != nil || subjects == "" {
		return false, err
	}
	for _, s := range strings.Split(subjects, "\n") {
		if !strings.HasPrefix(s, "burl: ") || strings.HasPrefix(s, "burl: add ") {
			return false, nil
		}
	}
	wt := w.gitWT()
	if _, err := wt.Run("reset", "-q", "--hard", remote); err != nil {
		return false, err
	}
	if err := w.materialize(local, remote); err != nil {
		return false, err
	}
	fmt.Fprintf(w.Stderr, "burl: warning: dropped %d workflow commit(s) of this clone that never reached %s and conflict with what it has since (commands killed before their push, which lost the race); git burl doctor looks at what they left:\n%s\n",
		strings.Count(subjects, "\n")+1, w.Config.Remote, indentLines(subjects))
	return true, nil
}

// PushWorkflow pushes the workflow branch and the extra refspecs (task
// branches, main) in one atomic push: the remote takes all of them or none.
// A push refused because the remote moved on has ErrPushRejected in its
// chain.
func (w *Branch) PushWorkflow(extra ...string) error {
	if err := w.needRemote(); err != nil {
		return err
	}
	tip, err := w.Repo.Git.Run("rev-parse", "refs/heads/"+w.Repo.Branch)
	if err != nil {
		return err
	}
	res, err := w.Push(tip, extra)
	switch res {
	case PushWon:
		return nil
	case PushRefused:
		return errs.Wrap(err, errs.Git, "Cannot push to "+w.Config.Remote).WithFix("fix what refused the push (above), then git burl sync --push")
	}
	return &errs.Error{Kind: errs.Git, Title: "Cannot push to " + w.Config.Remote,
		Reason: fmt.Sprintf("%s moved on since this clone last pulled, so it refused (and, the push being atomic, nothing was pushed): %v", w.Config.Remote, err),
		Fix:    "git burl sync --pull, then git burl sync --push",
		Err:    fmt.Errorf("%w: %v", ErrPushRejected, err)}
}

// mergeNotes brings the landing records just fetched into this clone's,
// by union: landings on two machines annotate different commits.
func (w *Branch) mergeNotes() error {
	m, err := notes.Merge(w.Repo, w.Config.Remote)
	if err != nil {
		return errs.Wrap(err, errs.Git, "Cannot merge the landing records ("+notes.Ref+") of "+w.Config.Remote).
			WithFix("git burl doctor; git fetch %s %s:%s shows what the remote has", w.Config.Remote, notes.Ref, notes.Tracking(w.Config.Remote))
	}
	for _, c := range m.Theirs {
		fmt.Fprintf(w.Stderr, "burl: %s: %s's landing record is taken (its workflow branch records it; this clone's landing of it did not reach %s)\n", gitx.Short(c), w.Config.Remote, w.Config.Remote)
	}
	for _, c := range m.Ours {
		fmt.Fprintf(w.Stderr, "burl: warning: %s and %s hold different landing records for %s; this clone's is kept, as %s's workflow branch does not record its own (git burl verify checks it)\n", notes.Ref, w.Config.Remote, gitx.Short(c), w.Config.Remote)
	}
	return nil
}

func countRange(g gitx.Git, rng string) int {
	out, err := g.Run("rev-list", "--count", rng)
	if err != nil {
		return 0
	}
	n := 0
	fmt.Sscanf(out, "%d", &n)
	return n
}
