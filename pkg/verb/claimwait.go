package verb

import (
	"fmt"
	"slices"
	"strings"

	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// What a claim refused for unmet dependencies says when one of them, or a
// task one of them waits for, is BLOCKED: that task waits for a human,
// not for work, so the claimer is told which task and what moves it,
// never to wait (issue 40).

// blockedBehind is the BLOCKED tasks among unmet and, through the
// dependencies of those not DONE, behind them, in the order found.
func blockedBehind(w *workflow.Workflow, unmet []string) []*workflow.Entry {
	var out []*workflow.Entry
	seen := map[string]bool{}
	var walk func(ids []string)
	walk = func(ids []string) {
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			e, err := w.Get(id)
			if err != nil || e.Task == nil {
				continue
			}
			switch e.Bucket {
			case workflow.Done:
			case workflow.Blocked:
				out = append(out, e)
			default:
				walk(e.Task.List(task.KeyDependsOn))
			}
		}
	}
	walk(unmet)
	return out
}

// unblocking is what moves a BLOCKED task, as status says it: the command,
// or what it waits for itself.
func unblocking(w *workflow.Workflow, e *workflow.Entry) string {
	_, st := nextOf(w, e)
	switch {
	case st.Command != "":
		return st.Command
	case st.Wait != "":
		return e.ID + " " + st.Wait
	}
	return "git burl unblock " + e.ID
}

// blockedSaid is the BLOCKED tasks in words: each with its reason's first
// line and what moves it; one not among unmet is behind them.
func blockedSaid(w *workflow.Workflow, unmet []string, blocked []*workflow.Entry) string {
	var parts []string
	for _, e := range blocked {
		s := e.ID + " is BLOCKED"
		if !slices.Contains(unmet, e.ID) {
			s = "behind it, " + s
		}
		if r, _, _ := strings.Cut(e.Task.Str(task.KeyBlockedReason), "\n"); strings.TrimSpace(r) != "" {
			s += " (" + strings.TrimSpace(r) + ")"
		}
		parts = append(parts, fmt.Sprintf("%s: it waits for a human, not for work; next for %s: %s", s, e.ID, unblocking(w, e)))
	}
	return strings.Join(parts, "; ")
}

// blockedIDs are the IDs of blocked.
func blockedIDs(blocked []*workflow.Entry) []string {
	ids := make([]string, len(blocked))
	for i, e := range blocked {
		ids[i] = e.ID
	}
	return ids
}
