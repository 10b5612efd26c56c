package doctor

import (
	"reflect"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Each step below sets the keys the verb of that name sets, in order, so
// every lifecycle path a task can take is walked. doctor --repair moves a
// task to the bucket its frontmatter fits, so every state a verb leaves
// must fit its own bucket and no other.
func TestEveryLifecycleStateFitsExactlyItsBucket(t *testing.T) {
	now := time.Date(2026, 1, 13, 10, 0, 0, 0, time.UTC)
	steps := map[string]func(*task.Task){
		"claim": func(tk *task.Task) {
			tk.SetStr(task.KeyAssignedTo, "agent@host")
			tk.SetTime(task.KeyStartedAt, now)
			tk.SetStr(task.KeyBranch, "task-001-x")
			tk.SetStr(task.KeyWorktree, ".worktrees/task-001-x")
			tk.SetStr(task.KeyBaseSHA, "1111111111111111111111111111111111111111")
		},
		"submit": func(tk *task.Task) {
			tk.SetTime(task.KeySubmittedAt, now)
			tk.SetStr(task.KeySubmittedSHA, "2222222222222222222222222222222222222222")
		},
		"approve": func(tk *task.Task) { tk.SetTime(task.KeyCompletedAt, now) },
		"reject": func(tk *task.Task) {
			tk.SetInt(task.KeyQAAttempts, tk.Int(task.KeyQAAttempts)+1)
			tk.SetNull(task.KeySubmittedAt)
			tk.SetNull(task.KeySubmittedSHA)
			tk.SetNull(task.KeyAssignedTo)
		},
		"release": func(tk *task.Task) { tk.SetNull(task.KeyAssignedTo) },
		"block":   func(tk *task.Task) { tk.SetStr(task.KeyBlockedReason, "waits") },
		"unblock": func(tk *task.Task) {
			tk.SetNull(task.KeyBlockedReason)
			tk.SetNull(task.KeyAssignedTo)
			tk.SetNull(task.KeySubmittedAt)
			tk.SetNull(task.KeySubmittedSHA)
		},
	}
	paths := []struct {
		verbs []string
		want  workflow.Bucket
	}{
		{nil, workflow.Ready},
		{[]string{"claim"}, workflow.Doing},
		{[]string{"claim", "submit"}, workflow.QA},
		{[]string{"claim", "submit", "approve"}, workflow.Done},
		{[]string{"claim", "submit", "reject"}, workflow.Ready},
		{[]string{"claim", "submit", "reject", "claim"}, workflow.Doing},
		{[]string{"claim", "release"}, workflow.Ready},
		{[]string{"block"}, workflow.Blocked},
		{[]string{"claim", "block"}, workflow.Blocked},
		{[]string{"claim", "submit", "block"}, workflow.Blocked},
		{[]string{"claim", "submit", "block", "unblock"}, workflow.Ready},
		{[]string{"claim", "submit", "block", "unblock", "claim", "submit"}, workflow.QA},
	}
	for _, p := range paths {
		tk := task.New(task.Spec{ID: "TASK-001", Title: "x", Created: now})
		for _, v := range p.verbs {
			steps[v](tk)
		}
		if got := fits(tk); !reflect.DeepEqual(got, []workflow.Bucket{p.want}) {
			t.Errorf("after %v the task fits %v, want only %s (violations there: %v)", p.verbs, got, p.want, violations(tk, p.want))
		}
	}
}
