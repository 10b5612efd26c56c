package task

import (
	"sort"
	"strings"
	"testing"
)

func TestQueueLess(t *testing.T) {
	mk := func(id, prio, at string) *Task {
		s := "---\nid: " + id + "\npriority: " + prio + "\nsubmitted_at: " + at + "\n---\n"
		tk, err := Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	ts := []*Task{
		mk("TASK-1000", "high", "2026-01-01T00:00:01Z"),
		mk("TASK-999", "high", "2026-01-01T00:00:01Z"),
		mk("TASK-002", "low", "2026-01-01T00:00:00Z"),
		mk("TASK-003", "critical", "2026-01-01T00:00:05Z"),
		mk("TASK-004", "high", "2026-01-01T00:00:00Z"),
	}
	sort.SliceStable(ts, func(i, j int) bool { return QueueLess(ts[i], ts[j]) })
	var got []string
	for _, tk := range ts {
		got = append(got, tk.ID())
	}
	if want := "TASK-003 TASK-004 TASK-999 TASK-1000 TASK-002"; strings.Join(got, " ") != want {
		t.Errorf("queue order %v, want %s", got, want)
	}
}
