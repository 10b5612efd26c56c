package workflow

import (
	"fmt"

	"github.com/burl-dev/burl/pkg/reason"
	"github.com/burl-dev/burl/pkg/task"
)

// blockStacked moves the DOING and QA tasks stacked on parent (DESIGN §26)
// to BLOCKED, naming it, once parent was cancelled or went to BLOCKED:
// their work starts on a head that may never land, and only a human can
// say whether to wait for it, drop it, or start again on main. It runs
// after every transition, whatever verb or watch step made it, so that no
// way into BLOCKED leaves a child working on a dead parent; a child's own
// block blocks its children in turn.
func (w *Workflow) blockStacked(parent Entry) {
	var why string
	switch {
	case parent.Bucket == Done && parent.Task.Cancelled():
		why = "it is stacked on " + parent.ID + ", which was cancelled"
		if r := parent.Task.Str(task.KeyCancelledReason); r != "" {
			why += ": " + r
		}
	case parent.Bucket == Blocked:
		why = "it is stacked on " + parent.ID + ", which is BLOCKED"
		if r := parent.Task.BlockedSummary(); r != "" {
			why += ": " + r
		}
	default:
		return
	}
	for _, b := range []Bucket{Doing, QA} {
		es, _, err := w.InBucket(b)
		if err != nil {
			fmt.Fprintf(w.Stderr, "burl: warning: cannot list %s to block the tasks stacked on %s: %v\n", b, parent.ID, err)
			continue
		}
		for _, e := range es {
			if e.Task == nil || e.Task.Str(task.KeyStackedOn) != parent.ID {
				continue
			}
			_, err := w.Run(Transition{Verb: "block", ID: e.ID, From: []Bucket{b}, To: Blocked, Message: "block " + e.ID,
				Apply: func(tx *Tx) error {
					tx.Task.SetBlocked(why)
					tx.Details["reason"] = why
					tx.Details["summary"] = reason.Summary(why)
					tx.Details["cause"] = "stacked parent"
					tx.Details[task.KeyStackedOn] = parent.ID
					return nil
				}})
			if err != nil {
				fmt.Fprintf(w.Stderr, "burl: warning: %s stays in %s although %s: %v\n", e.ID, b, why, err)
				continue
			}
			fmt.Fprintf(w.Stderr, "burl: %s blocked: %s\n", e.ID, why)
		}
	}
}
