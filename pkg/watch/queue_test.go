package watch

import (
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/workflow"
)

// A failure that is not the work's is tried again a few times, waiting
// longer each time, then left until the task is submitted again; a new
// head starts over.
func TestSetAsideRetriesThenLeavesUntilResubmitted(t *testing.T) {
	s := &supervisor{aside: map[string]aside{}}
	e := &workflow.Entry{ID: "TASK-001", Task: mustTask(t, "submitted_sha: aaa\n")}
	var waits []time.Duration
	for i := 0; i < asideTries; i++ {
		a := s.setAside(e, "git failed", true)
		if !a.retries() {
			waits = append(waits, 0)
			continue
		}
		waits = append(waits, time.Until(a.until).Round(time.Second))
	}
	if waits[0] != 2*time.Second || waits[1] != 4*time.Second || waits[2] != 0 {
		t.Fatalf("waits %v, want [2s 4s 0] (the last: left until submitted again)", waits)
	}
	e.Task.SetStr("submitted_sha", "bbb")
	if a := s.setAside(e, "git failed", true); a.tries != 1 || !a.retries() {
		t.Fatalf("a new head is tried again from the start: %+v", a)
	}
	if a := s.setAside(e, "elsewhere", false); a.retries() {
		t.Fatalf("a task waiting for another clone is not retried: %+v", a)
	}
}
