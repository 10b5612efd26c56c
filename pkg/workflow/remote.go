package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/notes"
)

// The git remote is the coordination engine (DESIGN §5): with
// workflow_auto_push every mutation is pull → change → commit → push, and
// the remote's ref update is the compare-and-swap. A rejected push means
// another machine moved the workflow first: we drop our commit, pull, and
// redo the change against the new state (or give up, exit 4).

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

// AutoPush reports whether mutations are pushed as they happen.
func (w *Workflow) AutoPush() bool {
	return w.Config.WorkflowAutoPush && w.HasRemote()
}

func (w *Workflow) remoteRef() string {
	return gitx.Tracking(w.Config.Remote, w.Repo.Branch)
}

// Mutate runs one change of workflow state under the workflow lock. change
// does the edits and commits them (returning the commit and any other
// refspecs to push atomically with it). With auto-push it runs on top of a
// fresh pull and its commit is pushed; when the push loses, the commit is
// dropped and change runs again on the new state, up to maxPushAttempts.
// change must therefore derive everything from the files it reads.
func (w *Workflow) Mutate(action string, change func(attempt int) (commit string, extra []string, err error)) error {
	return w.mutate(action, false, change)
}

// freshFor is how long a pull (or a push that won) stands for the
// remote's state in a transition that reuses it: the check and prepare of
// one transition, not a build. Past it the transition pulls again.
const freshFor = 10 * time.Second

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

// interruptedApprove is the kind of doctor's repair that records an
// interrupted approve's DONE: a stranded approve like approve's own.
const interruptedApprove = "interrupted_approve"

// strandedApproves handles approves this clone committed and never pushed
// (killed between the commit and the push): with workflow_auto_push an
// approve publishes DONE and main together, so such a commit must not
// reach the remote without main. When local main is a fast-forward of the
// remote's, it returns the refspec that carries main along with the next
// push. When the remote's main has moved on meanwhile, those commits
// record work main cannot take as it is: they are dropped (the tasks are
// back where the remote has them, in QA), and the next approve redoes
// them from their branches (integrate.Main moves local main back to the
// remote's, as every commit only it has is on a task branch).
func (w *Workflow) strandedApproves(pr *PullResult) ([]string, error) {
	g, branch := w.Repo.Git, w.Repo.Branch
	subjects, err := g.Run("log", "--format=%s", pr.Remote+"..refs/heads/"+branch)
	if err != nil || !(strings.Contains("\n"+subjects, "\nburl: approve ") || strings.Contains(subjects, ": "+interruptedApprove+"\n") || strings.HasSuffix(subjects, ": "+interruptedApprove)) {
		return nil, err
	}
	main := w.Config.MainBranch
	if err := g.FetchTracking(w.Config.Remote, main); err != nil {
		// Unreachable: the push that follows finds out.
		return nil, nil
	}
	local, _ := g.Run("rev-parse", "-q", "--verify", "refs/heads/"+main)
	remote, _ := g.Run("rev-parse", "-q", "--verify", gitx.Tracking(w.Config.Remote, main))
	// The main to carry is the one those approves recorded, not local
	// main's tip: an approve in flight on this machine (it holds the main
	// lock, not the workflow lock) may have advanced local main past them,
	// and its work must not reach the remote before its DONE does.
	merged, err := w.unpushedMerged(pr.Remote)
	if err != nil {
		return nil, err
	}
	switch {
	case merged != "" && remote == "":
		return []string{merged + ":refs/heads/" + main}, nil
	case merged != "":
		if in, err := g.Test("merge-base", "--is-ancestor", merged, remote); err != nil || in {
			return nil, err
		}
		if ff, err := g.Test("merge-base", "--is-ancestor", remote, merged); err != nil {
			return nil, err
		} else if ff {
			return []string{merged + ":refs/heads/" + main}, nil
		}
	case local == "" || local == remote:
		return nil, nil
	default:
		if ahead, err := g.Test("merge-base", "--is-ancestor", remote, local); remote == "" || (err == nil && ahead) {
			return []string{local + ":refs/heads/" + main}, nil
		}
		if behind, err := g.Test("merge-base", "--is-ancestor", local, remote); err != nil || behind {
			return nil, err
		}
	}
	head, err := w.gitWT().Run("rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	if _, err := w.gitWT().Run("reset", "-q", "--hard", pr.Remote); err != nil {
		return nil, err
	}
	if err := w.materialize(head, pr.Remote); err != nil {
		return nil, err
	}
	fmt.Fprintf(w.Stderr, "burl: warning: dropped %d workflow commit(s) of this clone that never reached %s, among them an approve whose %s was not pushed before %s/%s moved on; approve those tasks again:\n%s\n",
		strings.Count(subjects, "\n")+1, w.Config.Remote, main, w.Config.Remote, main, indentLines(subjects))
	return nil, nil
}

// StrandedMerged is the newest merged_sha of this clone's approves that the
// remote's workflow branch (as last fetched) does not have yet: the main
// their DONE stands for. "" when there are none.
func (w *Workflow) StrandedMerged() (string, error) {
	from, _ := w.Repo.Git.Run("rev-parse", "-q", "--verify", gitx.Tracking(w.Config.Remote, w.Repo.Branch))
	return w.unpushedMerged(from)
}

// unpushedMerged is StrandedMerged counted from from, the remote's tip.
// "" also when the remote has no workflow branch to compare with.
func (w *Workflow) unpushedMerged(from string) (string, error) {
	if from == "" {
		return "", nil
	}
	g := w.Repo.Git
	out, err := g.Run("diff", "--no-renames", "--no-color", "--no-ext-diff", "-U0", from, "refs/heads/"+w.Repo.Branch,
		"--", filepath.ToSlash(filepath.Join(filepath.Base(w.Dir), EventsDirName)))
	if err != nil {
		return "", err
	}
	newest := ""
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "+{") {
			continue
		}
		var e struct {
			Action  string `json:"action"`
			Details struct {
				Merged      string `json:"merged_sha"`
				Interrupted string `json:"interrupted"`
			} `json:"details"`
		}
		if json.Unmarshal([]byte(l[1:]), &e) != nil || !gitx.ValidObjectID(e.Details.Merged) ||
			!(e.Action == "approve" || e.Action == "repair" && e.Details.Interrupted == "approve") {
			continue
		}
		// Approves on one machine land one after another (the main lock):
		// each merged_sha descends from the ones before.
		if newest == "" {
			newest = e.Details.Merged
		} else if later, err := g.Test("merge-base", "--is-ancestor", newest, e.Details.Merged); err == nil && later {
			newest = e.Details.Merged
		}
	}
	return newest, nil
}

// SettleStranded does to this clone's unpushed workflow commits what the
// next transition's pull does (strandedApproves), for a caller that holds
// the workflow lock and is about to push them (doctor's repair): it pulls,
// drops approves whose main can no longer go with them, and returns the
// refspec carrying main when it must.
func (w *Workflow) SettleStranded() ([]string, error) {
	pr, err := w.PullWorkflow()
	if err != nil || pr.Ahead == 0 {
		return nil, err
	}
	return w.strandedApproves(pr)
}

// pushesRef reports whether refspecs already push to the destination of c.
func pushesRef(refspecs []string, c string) bool {
	_, dst, _ := strings.Cut(c, ":")
	for _, r := range refspecs {
		if _, d, _ := strings.Cut(r, ":"); d == dst {
			return true
		}
	}
	return false
}

func indentLines(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}

// pushResult is how one push of the workflow branch ended.
type pushResult int

const (
	pushWon     pushResult = iota // our commit is the remote's workflow branch
	pushLost                      // another machine moved the branch first: pull and redo
	pushLostRef                   // another pushed ref (main) moved: redoing cannot help
	pushRefused                   // the remote or a hook refused it, or it never got there
)

// push pushes commit as the workflow branch plus extra refspecs, in one
// atomic push, and classifies the outcome from git's porcelain report. A
// win counts only when the report shows the ref updated to our own commit.
func (w *Workflow) push(commit string, extra []string) (pushResult, error) {
	target := "refs/heads/" + w.Repo.Branch
	args := []string{"push", "--porcelain", "--atomic", w.Config.Remote, commit + ":" + target}
	args = append(args, extra...)
	// The landing records go with the workflow branch that names their
	// hashes, in the same atomic push (DESIGN §22): asked every time, as
	// git tells an unchanged ref in the same round trip, at no cost.
	if !pushesRef(args, notes.PushSpec) {
		args = append(args, notes.PushSpec)
	}
	out, perr := w.Repo.Git.RunInput(nil, args...)
	lines := porcelain(string(out))
	l, ok := lines[target]
	switch {
	case perr == nil && ok && (l.flag == ' ' || l.flag == '*') && landed(commit, l.summary):
		return pushWon, nil
	case perr == nil && ok && l.flag == '=':
		// "Up to date": the remote already had this commit, which can only
		// be ours if an earlier report got lost.
		if w.remoteHas(commit) {
			return pushWon, nil
		}
		return pushRefused, fmt.Errorf("the remote reports %s up to date without our commit", target)
	case !ok || perr == nil:
		// No report for our ref: a local pre-push hook refused, or the
		// connection dropped. Settle the outcome with the remote itself.
		if w.remoteHas(commit) {
			return pushWon, nil
		}
		if perr == nil {
			perr = fmt.Errorf("unexpected push report: %s", strings.TrimSpace(string(out)))
		}
		return pushRefused, perr
	}
	for ref, other := range lines {
		// The notes lost only to another landing's notes, merged by the
		// next pull: redoing helps, as for the workflow branch.
		if ref != target && ref != notes.Ref && other.flag == '!' && !strings.Contains(other.summary, "atomic push failed") && raceLost(other.summary) {
			return pushLostRef, fmt.Errorf("%s %s", ref, other.summary)
		}
	}
	if raceLost(l.summary) {
		return pushLost, fmt.Errorf("%s %s", target, l.summary)
	}
	return pushRefused, fmt.Errorf("%s %s: %v", target, l.summary, perr)
}

// raceLost tells a push that lost a race (the ref moved since we read it,
// or the server could not lock it because another push was updating it)
// from one refused on purpose (a server hook, permissions).
func raceLost(summary string) bool {
	return strings.HasPrefix(summary, "[rejected]") ||
		strings.Contains(summary, "failed to update ref") ||
		strings.Contains(summary, "cannot lock ref") ||
		strings.Contains(summary, "failed to lock")
}

type pushLine struct {
	flag    byte
	summary string
}

// porcelain parses `git push --porcelain`: "<flag>\t<from>:<to>\t<summary>".
func porcelain(out string) map[string]pushLine {
	m := map[string]pushLine{}
	for _, l := range strings.Split(out, "\n") {
		parts := strings.Split(l, "\t")
		if len(parts) < 3 || len(parts[0]) != 1 {
			continue
		}
		_, to, ok := strings.Cut(parts[1], ":")
		if !ok {
			continue
		}
		m[to] = pushLine{flag: parts[0][0], summary: parts[2]}
	}
	return m
}

// landed reads a push summary ("2986e7d..3af356e" or "[new branch]") and
// says whether the ref now points at commit.
func landed(commit, summary string) bool {
	if summary == "[new branch]" {
		return true
	}
	_, after, ok := strings.Cut(summary, "..")
	return ok && after != "" && strings.HasPrefix(commit, after)
}

func (w *Workflow) remoteHas(commit string) bool {
	out, err := w.Repo.Git.Run("ls-remote", w.Config.Remote, "refs/heads/"+w.Repo.Branch)
	return err == nil && strings.HasPrefix(out, commit)
}

// Divergence is how the local workflow branch relates to the remote's
// (as of the last fetch).
func (w *Workflow) Divergence() (ahead, behind int, ok bool) {
	g := gitx.In(w.Repo.Root)
	out, err := g.Run("rev-list", "--left-right", "--count", w.Repo.Branch+"..."+w.remoteRef())
	if err != nil {
		return 0, 0, false
	}
	fmt.Sscanf(out, "%d %d", &ahead, &behind)
	return ahead, behind, true
}
