package watch

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/review"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// roundLookback bounds how far back history reads the event log: a task
// added longer ago than this counts from there.
const roundLookback = 30 * 24 * time.Hour

// maxBackoff is where retry_backoff stops doubling (DESIGN §20).
const maxBackoff = 10 * time.Minute

// rounds is what the event log says of a task's runs, on any machine,
// since it was added: the next run's number, how long it must wait, and
// the heads a rejection already answered.
type rounds struct {
	// runs is how many runs it had: a watch that takes a task over,
	// starts again after a stop, or runs it again after a rejection goes
	// on numbering (BURL_ATTEMPT grows with every run).
	runs int
	// failed counts the failed runs and the rejections since it was
	// added or a human last unblocked it; last is when the latest was.
	failed int
	last   time.Time
	// rejected are the heads that were submitted and then rejected
	// (approve leaves the task branch at submitted_sha when it does not
	// land): a run that leaves the branch at one of them changed nothing.
	rejected map[string]bool
}

// failedResults are the run_end results that count as a failed round.
var failedResults = map[string]bool{ResultFailed: true, ResultTimeout: true, ResultUnchanged: true, ResultGates: true, ResultTampered: true}

// rejections are the events that send submitted work back to READY (or to
// BLOCKED) with a reason.
var rejections = map[string]bool{"reject": true, "checks_failed": true, "pr_changes_requested": true, "pr_closed": true}

// taskRounds reads the task's history, newest first, only as far back as
// its add (or roundLookback).
func taskRounds(w *workflow.Workflow, id string) rounds {
	h := rounds{rejected: map[string]bool{}}
	counting, answered := true, false
	newestFirst(w, id, func(e events.Event) bool {
		failed := false
		switch a := e.Action; {
		case a == "add":
			return false
		case a == "run_start":
			h.runs++
		case a == "run_end":
			r, _ := e.Details["result"].(string)
			failed = failedResults[r]
		case rejections[a]:
			failed, answered = true, true
		case a == "review":
			// A reviewer's request for changes is a rejection too: the
			// next run backs off, and the head it answered is not new.
			if v, _ := e.Details["verdict"].(string); v == review.RequestChanges {
				failed, answered = true, true
			}
		case a == "submit" && answered:
			if sha, _ := e.Details["submitted_sha"].(string); sha != "" {
				h.rejected[sha] = true
			}
			answered = false
		case a == "unblock":
			// A human looked and sent it back: no more waiting.
			counting = false
		}
		if failed && counting {
			if h.failed == 0 {
				// Events keep whole seconds: the next one starts
				// when the failure's second is over.
				h.last = e.TS.Add(time.Second)
			}
			h.failed++
		}
		return true
	})
	return h
}

// fail counts a failed run of this watcher, at now.
func (h *rounds) fail(now time.Time) {
	h.failed++
	h.last = now
}

// wait is how long, at now, the next run must still wait: retry_backoff
// (base) after the last failed round, doubled for each one before it, at
// most maxBackoff (or base, when that is longer). Nothing before the
// first failure, nor with base 0.
func (h *rounds) wait(base time.Duration, now time.Time) time.Duration {
	if h.failed == 0 || base <= 0 {
		return 0
	}
	limit, d := max(base, maxBackoff), base
	for i := 1; i < h.failed && d < limit; i++ {
		d *= 2
	}
	return min(d, limit) - now.Sub(h.last)
}

// repeated is why a run that left t's branch where it is changed nothing
// (DESIGN §20, §25): its change is one a rejection already answered,
// judged by content (the diff against its base), so that a branch the
// queue rebased onto a newer main, the same commits on top, is the same
// change. Submitting it again would only be rejected again. "" when it is
// new.
func (h *rounds) repeated(w *workflow.Workflow, t *task.Task) string {
	if len(h.rejected) == 0 {
		return ""
	}
	g := w.Repo.Git
	head, err := g.Run("rev-parse", "-q", "--verify", "refs/heads/"+t.Branch())
	if err != nil {
		return ""
	}
	was := ""
	if h.rejected[head] {
		was = head
	} else if mine := changeID(g, w.Config.MainBranch, head); mine != "" {
		for sha := range h.rejected {
			if changeID(g, w.Config.MainBranch, sha) == mine {
				was = sha
				break
			}
		}
	}
	if was == "" {
		return ""
	}
	what := "nothing changed since head " + gitx.Short(was) + " was rejected"
	if was != head {
		what = fmt.Sprintf("nothing changed since head %s was rejected: head %s (rebased by the queue) makes the same change against its base", gitx.Short(was), gitx.Short(head))
	}
	return what + "; not submitted again\n" +
		"The branch holds the change the last QA rejection answered: fix what the rejection says (Earlier QA rejections) and commit that; the same change is only rejected again."
}

// changeID names the change commit makes against its base (where it
// forked from main) by content: the patch-id of that diff, the same for
// the same change rebased onto a main that moved elsewhere. "" when it
// cannot be told (the commit is not in this clone, or changes nothing).
func changeID(g gitx.Git, main, commit string) string {
	base, err := g.Run("merge-base", "refs/heads/"+main, commit)
	if err != nil {
		return ""
	}
	diff, err := g.RunInput(nil, "diff-tree", "-p", "--no-color", "--no-ext-diff", "--no-textconv", "-r", base, commit)
	if err != nil || len(diff) == 0 {
		return ""
	}
	out, err := g.RunInput(diff, "patch-id", "--stable")
	if err != nil {
		return ""
	}
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return id
}

// backoff waits out retry_backoff before run attempt of id, the task
// held under a renewed lease meanwhile. It reports whether the run may
// go ahead: not when watch stops (the task is released) or the task was
// taken from this watcher (a human may take it back while it waits).
func (s *supervisor) backoff(actor, id string, attempt int, h *rounds) bool {
	w, err := workflow.Open(s.opt.Dir)
	if err != nil {
		return true
	}
	base := w.Config.RetryBackoff
	d := h.wait(base, time.Now())
	if d <= 0 {
		return true
	}
	until := time.Now().Add(d)
	s.logf("%s: run %d waits %s (retry_backoff %s, doubled with each of its %d failed round(s))", id, attempt, roughly(d), base, h.failed)
	w.Actor = actor
	lease := w.Config.LeaseSeconds
	err = retryLocked(func() error {
		return leaseTx(w, id, actor, "lease", lease, map[string]any{"backoff_until": until.UTC().Format(time.RFC3339), "attempt": attempt})
	})
	if errors.Is(err, errLost.Err) {
		s.logf("%s: lost the task while it waited for its next run", id)
		return false
	}
	quit, lost, renewed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var why string // renew says who took it
	go func() {
		defer close(renewed)
		s.renew(id, actor, lease, quit, lost, &why)
	}()
	defer func() {
		close(quit)
		<-renewed
	}()
	select {
	case <-time.After(d):
		return true
	case <-lost:
		return false
	case <-s.stop:
	case <-s.opt.Stop:
	}
	s.releaseStopped(actor, id)
	return false
}

// roughly is d as a person reads it: whole seconds, or milliseconds
// under one.
func roughly(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}

// newestFirst calls each with the task's events, newest first, until it
// returns false. The log is read newest day first, and only as far back as
// roundLookback.
func newestFirst(w *workflow.Workflow, id string, each func(events.Event) bool) {
	files, err := events.Files(w.EventsDir(), time.Now().Add(-roundLookback))
	if err != nil {
		return
	}
	for i := len(files) - 1; i >= 0; i-- {
		f, err := os.Open(files[i])
		if err != nil {
			return
		}
		evs, _, err := events.Decode(f, events.Filter{Task: id})
		f.Close()
		if err != nil {
			return
		}
		for j := len(evs) - 1; j >= 0; j-- {
			if !each(evs[j]) {
				return
			}
		}
	}
}
