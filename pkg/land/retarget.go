package land

import (
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/workflow"
)

// gatesFailedOn reports whether task id's gates failed on its head head
// since it was last submitted or restacked: a settle round does not
// retarget it again (each sync would run them again on the same
// commits); a new head does, or a human's approve.
func gatesFailedOn(w *workflow.Workflow, id, head string) bool {
	evs, _, err := events.Read(w.EventsDir(), events.Filter{Task: id})
	if err != nil || head == "" {
		return false
	}
	failed := ""
	for _, e := range evs {
		switch e.Action {
		case "approve":
			failed = ""
			if r, _ := e.Details["result"].(string); r == "fail" {
				failed, _ = e.Details["submitted_sha"].(string)
			}
		case "submit", "restack", "reject", "claim", "pr_open":
			// A new head, or the gates passed on this one.
			failed = ""
		}
	}
	return failed == head
}
