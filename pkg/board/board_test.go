package board

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/workflow"
)

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func sp(s string) *string { return &s }

const prURL = "http://127.0.0.1:1/burl/demo/pulls/7"

func TestRunningPairsStartAndEnd(t *testing.T) {
	ev := func(action, id string, attempt float64, ts time.Time) events.Event {
		return events.Event{TS: ts, Task: sp(id), Action: action, Details: map[string]any{"agent": "a", "attempt": attempt, "log": ".burl/.workflow/logs/" + id + ".log"}}
	}
	rs := Running([]events.Event{
		ev("run_start", "TASK-001", 1, now),
		ev("run_end", "TASK-001", 1, now.Add(time.Second)),
		ev("run_start", "TASK-001", 2, now.Add(2*time.Second)),
		ev("run_start", "TASK-002", 1, now.Add(3*time.Second)),
		ev("claim", "TASK-003", 0, now),
	})
	if len(rs) != 2 || rs[0].Task != "TASK-001" || rs[0].Attempt != 2 || rs[1].Task != "TASK-002" || rs[1].Log != ".burl/.workflow/logs/TASK-002.log" {
		t.Fatalf("running = %+v", rs)
	}
}

func TestLastLineReadsTheTail(t *testing.T) {
	f := filepath.Join(t.TempDir(), "run.log")
	os.WriteFile(f, []byte(strings.Repeat("x", 10000)+"\nfirst\nlast one\n\n"), 0o644)
	if got := lastLine(f); got != "last one" {
		t.Fatalf("lastLine = %q", got)
	}
	if got := lastLine(f + ".missing"); got != "" {
		t.Fatalf("lastLine of a missing file = %q", got)
	}
}

// A run is the run of its DOING task only while that task's holder is
// the watcher that started it; a run left unended by a dead watcher
// gives way to the newer run of its task.
func TestARunBelongsToItsTasksHolder(t *testing.T) {
	s := workflow.Summary{ID: "TASK-001", AssignedTo: "bot@h", LeaseHolder: "bot@h#2.9"}
	if !(Run{holder: "bot@h#2.9"}).runs(s) || (Run{holder: "bot@h#1.5"}).runs(s) {
		t.Error("runs compares holders")
	}
	if !(Run{actor: "bot@h"}).runs(s) || (Run{actor: "other@h"}).runs(workflow.Summary{AssignedTo: "bot@h"}) {
		t.Error("a run without a holder is its assignee's")
	}
	rs := Running([]events.Event{
		{TS: now, Task: sp("TASK-001"), Action: "run_start", Details: map[string]any{"agent": "bot", "attempt": 1.0, "holder": "bot@h#1.5"}},
		{TS: now, Task: sp("TASK-001"), Action: "run_start", Details: map[string]any{"agent": "bot", "attempt": 2.0, "holder": "bot@h#2.9"}},
	})
	if len(rs) != 1 || rs[0].Attempt != 2 || rs[0].holder != "bot@h#2.9" {
		t.Fatalf("running = %+v", rs)
	}
}

func TestSetPRReadsTheFrontmatterOfQAAndDONEOnly(t *testing.T) {
	for _, tc := range []struct {
		bucket workflow.Bucket
		f      map[string]any
		n      int
		state  string
	}{
		{workflow.QA, map[string]any{"pr_number": 7.0, "pr_url": prURL}, 7, PROpen},
		{workflow.QA, map[string]any{"pr_number": "7", "pr_url": prURL}, 7, PROpen},
		{workflow.Done, map[string]any{"pr_number": 6.0, "pr_url": prURL}, 6, PRMerged},
		// Closed: the keys are null and the task back in READY.
		{workflow.QA, map[string]any{"pr_number": nil, "pr_url": nil}, 0, ""},
		{workflow.Ready, map[string]any{"pr_number": 7.0, "pr_url": prURL}, 0, ""},
		{workflow.QA, map[string]any{"pr_number": "x", "pr_url": prURL}, 0, ""},
		{workflow.QA, map[string]any{"pr_number": -3.0}, 0, ""},
	} {
		c := Card{Bucket: tc.bucket}
		c.setPR(tc.f)
		if c.PRNumber != tc.n || c.PRState != tc.state {
			t.Errorf("%s %v: PR %d %q, want %d %q", tc.bucket, tc.f, c.PRNumber, c.PRState, tc.n, tc.state)
		}
	}
	c := Card{Bucket: workflow.QA}
	c.setPR(map[string]any{"pr_number": 7.0, "pr_url": "http://x/\x1b[2J"})
	if c.PRURL != `http://x/\x1b[2J` {
		t.Errorf("control characters of pr_url kept: %q", c.PRURL)
	}
}
