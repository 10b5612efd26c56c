package verb

import (
	"github.com/burl-dev/burl/pkg/next"
	"github.com/burl-dev/burl/pkg/workflow"
)

// StepOut is a task's next step as --json reports it beside the task.
type StepOut struct {
	State   string `json:"state"`
	Suggest string `json:"suggest"`
	Waits   string `json:"waits,omitempty"`
	Why     string `json:"why,omitempty"`
	Lost    bool   `json:"lost,omitempty"`
}

// nextOf is what happens next to one task, decided as status decides it
// for every task (package next): over the open tasks, which decide
// max_parallel, overlaps and what a dependency waits for.
func nextOf(w *workflow.Workflow, e *workflow.Entry) (next.Facts, next.Step) {
	f := next.Facts{ID: e.ID, Bucket: e.Bucket, Cancelled: e.Task != nil && e.Task.Cancelled()}
	if e.Bucket == workflow.Done {
		return f, next.For(f)
	}
	sums, err := w.Summaries(false, false)
	if err != nil {
		return f, next.Step{Command: workflow.Suggest(e.Bucket, e.ID)}
	}
	var me *workflow.Summary
	for i, s := range sums {
		if s.Err == nil && s.ID == e.ID && s.Bucket == e.Bucket {
			me = &sums[i]
		}
	}
	if me == nil {
		return f, next.Step{Command: workflow.Suggest(e.Bucket, e.ID)}
	}
	in := next.Inputs{Tasks: sums}
	if e.Bucket == workflow.QA {
		_, in.BuildUntrusted = UntrustedConfig(w)
	}
	set, err := next.Gather(w, in)
	if err != nil {
		return f, next.Step{Command: workflow.Suggest(e.Bucket, e.ID)}
	}
	f = set.Facts(me)
	return f, next.For(f)
}

// StepJSON is the step s of the task f describes, as --json reports it.
func StepJSON(f next.Facts, s next.Step) StepOut {
	return StepOut{State: string(s.State), Suggest: s.Command, Waits: s.Wait, Why: s.Why, Lost: f.Holder.Gone()}
}
