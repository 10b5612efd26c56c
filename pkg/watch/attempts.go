package watch

import (
	"os"
	"time"

	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/workflow"
)

// roundLookback bounds how far back runsSoFar reads the event log: a task
// whose round of work began longer ago than this counts from there.
const roundLookback = 30 * 24 * time.Hour

// runsSoFar is how many runs the task has had in its current round of
// work, on any machine: the run_start events since it last (re)entered
// READY through add, a rejection, an unblock or a pull request sent back.
// A watch that takes a task over, or starts again after a stop, goes on
// numbering its runs instead of calling the next one run 1.
func runsSoFar(w *workflow.Workflow, id string) int {
	n := 0
	newestFirst(w, id, func(e events.Event) bool {
		switch e.Action {
		case "run_start":
			n++
		case "add", "reject", "unblock", "pr_closed", "pr_changes_requested":
			return false
		}
		return true
	})
	return n
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
