package workflow

import (
	"time"

	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/task"
)

// RunAgent is the agents.yaml agent whose watch run works t for worker
// (the last run_start of the task by that actor), or "" when a human
// claimed it: who is named as the work's author, and whether there is an
// agent to send the task back to.
func (w *Workflow) RunAgent(t *task.Task, worker string) string {
	since, err := time.Parse(time.RFC3339, t.Str(task.KeyCreated))
	if err != nil {
		since = time.Now().AddDate(0, 0, -1)
	}
	evs, _ := events.ForTask(w.EventsDir(), t.ID(), since)
	name := ""
	for _, e := range evs {
		if e.Action == "run_start" && e.Actor == worker {
			name, _ = e.Details["agent"].(string)
		}
	}
	return name
}
