package workflow

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
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

// ErrKind: losing a race is a lock failure (exit 4).
func (e *LostError) ErrKind() errs.Kind { return errs.Lock }

// AutoPush reports whether mutations are pushed as they happen.
func (w *Workflow) AutoPush() bool {
	return w.Config.WorkflowAutoPush && w.HasRemote()
}

func (w *Workflow) remoteRef() string {
	return "refs/remotes/" + w.Config.Remote + "/" + w.Repo.Branch
}

// Mutate runs one change of workflow state under the workflow lock. change
// does the edits and commits them (returning the commit and any other
// refspecs to push atomically with it). With auto-push it runs on top of a
// fresh pull and its commit is pushed; when the push loses, the commit is
// dropped and change runs again on the new state, up to maxPushAttempts.
// change must therefore derive everything from the files it reads.
func (w *Workflow) Mutate(action string, change func(attempt int) (commit string, extra []string, err error)) error {
	for attempt := 1; ; attempt++ {
		wl, err := w.LockWorkflow(action)
		if err != nil {
			return err
		}
		push := w.AutoPush()
		var pre string
		if push {
			if pre, err = w.gitWT().Run("rev-parse", "HEAD"); err == nil {
				_, err = w.PullWorkflow()
			}
			if err != nil {
				wl.Release()
				return err
			}
		}
		commit, extra, err := change(attempt)
		if err != nil || !push || commit == "" {
			wl.Release()
			return err
		}
		won, final, perr := w.push(commit, extra)
		if won {
			wl.Release()
			return nil
		}
		// Drop our commit (and only ours: unpushed commits from before stay
		// and are replayed by the next pull).
		if _, rerr := w.gitWT().Run("reset", "-q", "--hard", pre); rerr != nil {
			wl.Release()
			return errors.Join(perr, rerr)
		}
		wl.Release()
		if final || attempt >= maxPushAttempts {
			return &LostError{Reason: fmt.Sprintf("%s: the push to %s was rejected (%v); nothing was changed", action, w.Config.Remote, perr)}
		}
		// Jitter keeps losers from colliding again in lockstep.
		time.Sleep(time.Duration(20+rand.Intn(80*attempt)) * time.Millisecond)
	}
}

// push pushes commit as the workflow branch plus extra refspecs, in one
// atomic push. won is true only when git reports our own commit landed.
// final means retrying cannot help (a ref other than the workflow branch
// was rejected, e.g. main moved on the remote).
func (w *Workflow) push(commit string, extra []string) (won, final bool, err error) {
	target := "refs/heads/" + w.Repo.Branch
	args := []string{"push", "--porcelain", "--atomic", w.Config.Remote, commit + ":" + target}
	args = append(args, extra...)
	for try := 0; ; try++ {
		out, perr := w.Repo.Git.RunInput(nil, args...)
		lines := porcelain(string(out))
		flag, ok := lines[target]
		switch {
		case perr == nil && ok && (flag.flag == ' ' || flag.flag == '*') && landed(commit, flag.summary):
			return true, false, nil
		case perr == nil && ok && flag.flag == '=':
			// "Up to date" means the remote already had this commit: it can only
			// be ours from an earlier attempt whose report we lost.
			return w.remoteHas(commit), false, nil
		}
		for ref, l := range lines {
			if ref != target && l.flag == '!' && !strings.Contains(l.summary, "atomic push failed") {
				return false, true, fmt.Errorf("%s %s", ref, l.summary)
			}
		}
		if perr != nil && serverLock(perr) && try < 3 {
			time.Sleep(time.Duration(50*(try+1)) * time.Millisecond)
			continue
		}
		if perr != nil && len(lines) == 0 {
			// No report at all (a dropped connection): settle it with the remote.
			if w.remoteHas(commit) {
				return true, false, nil
			}
			return false, false, errs.Wrap(perr, errs.Git, "Cannot push the workflow branch")
		}
		if perr == nil {
			perr = fmt.Errorf("unexpected push report: %s", strings.TrimSpace(string(out)))
		}
		return false, false, perr
	}
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

func serverLock(err error) bool {
	s := err.Error()
	return strings.Contains(s, "failed to update ref") || strings.Contains(s, "cannot lock ref")
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
