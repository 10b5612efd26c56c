package watch

import (
	"github.com/burl-dev/burl/pkg/intake"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/workflow"
)

// proposals records in PROPOSED the tasks a sandboxed run proposed (git
// burl add or MCP's propose inside it, DESIGN §27), which it could only
// leave in its out folder: each checked as add checks it, as the agent's,
// discovered from the run's task. None is trusted: watch never calls
// trust for what a run wrote.
func (s *supervisor) proposals(w *workflow.Workflow, actor, id string, box *sandbox.Run) {
	w.Actor = actor
	for _, r := range intake.RecordDeferred(w, box.Out, actor, id, retryLocked) {
		if r.Err != nil {
			s.logf("%s: the run's proposal %q not recorded: %v", id, r.Title, r.Err)
			continue
		}
		s.logf("%s: the agent proposed %s %q (PROPOSED; a human accepts it: git burl accept %s)", id, r.Entry.ID, r.Title, r.Entry.ID)
	}
}
