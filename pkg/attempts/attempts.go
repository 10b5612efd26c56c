// Package attempts is what the event log says of a task's runs, on any
// machine, since it was added (DESIGN §20): the next run's number, how
// long it must wait (retry_backoff, doubled with each failed round), and
// the heads a rejection already answered, told by content (DESIGN §25).
package attempts

import (
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

// Rounds is what the event log says of a task's runs, on any machine,
// since it was added: the next run's number, how long it must wait, and
// the heads a rejection already answered.
type Rounds struct {
	// Runs is how many runs it had: a watch that takes a task over,
	// starts again after a stop, or runs it again after a rejection goes
	// on numbering (BURL_ATTEMPT grows with every run).
	Runs int
	// Failed counts the failed runs and the rejections since it was
	// added or a human last unblocked it; last is when the latest was.
	Failed int
	last   time.Time
	// rejected are the heads that were submitted and then rejected
	// (approve leaves the task branch at submitted_sha when it does not
	// land): a run that leaves the branch at one of them changed nothing.
	rejected map[string]bool
}

// rejections are the events that send submitted work back to READY (or to
// BLOCKED) with a reason.
var rejections = map[string]bool{"reject": true, "checks_failed": true, "pr_changes_requested": true, "pr_closed": true}

// Of reads the task's history, newest first, only as far back as its add
// (or roundLookback); failedResults are the run_end results that count as
// a failed round.
func Of(w *workflow.Workflow, id string, failedResults map[string]bool) Rounds {
	h := Rounds{rejected: map[string]bool{}}
	counting, answered := true, false
	NewestFirst(w, id, func(e events.Event) bool {
		failed := false
		switch a := e.Action; {
		case a == "add":
			return false
		case a == "run_start":
			h.Runs++
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
			if h.Failed == 0 {
				// Events keep whole seconds: the next one starts
				// when the failure's second is over.
				h.last = e.TS.Add(time.Second)
			}
			h.Failed++
		}
		return true
	})
	return h
}

// Fail counts a failed run of this watcher, at now.
func (h *Rounds) Fail(now time.Time) {
	h.Failed++
	h.last = now
}

// Wait is how long, at now, the next run must still wait: retry_backoff
// (base) after the last failed round, doubled for each one before it, at
// most maxBackoff (or base, when that is longer). Nothing before the
// first failure, nor with base 0.
func (h *Rounds) Wait(base time.Duration, now time.Time) time.Duration {
	if h.Failed == 0 || base <= 0 {
		return 0
	}
	limit, d := max(base, maxBackoff), base
	for i := 1; i < h.Failed && d < limit; i++ {
		d *= 2
	}
	return min(d, limit) - now.Sub(h.last)
}

// Repeated is why a run that left t's branch where it is changed nothing
// (DESIGN §20, §25): its change is one a rejection already answered,
// judged by content (the diff against its base), so that a branch the
// queue rebased onto a newer main, the same commits on top, is the same
// change. Submitting it again would only be rejected again. "" when it is
// new.
func (h *Rounds) Repeated(w *workflow.Workflow, t *task.Task) string {
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

// NewestFirst calls each with the task's events, newest first, until it
// returns false. The log is read newest day first, and only as far back as
// roundLookback.
func NewestFirst(w *workflow.Workflow, id string, each func(events.Event) bool) {
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

// FailedReviews is how many reviews of id at head failed one after the
// other up to now: each is one of the reviewer's tries.
func FailedReviews(w *workflow.Workflow, id, head string) int {
	n := 0
	NewestFirst(w, id, func(e events.Event) bool {
		switch e.Action {
		case "review":
			if e.Details["verdict"] != review.Failed || e.Details["head"] != head {
				return false
			}
			n++
		case "submit", "reject", "unblock":
			return false
		}
		return true
	})
	return n
}
