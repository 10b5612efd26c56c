package stack

import "testing"

func TestDrawMarksTheTaskAndItsLinks(t *testing.T) {
	got := Draw([]Link{{ID: "TASK-001", Bucket: "DONE"}, {ID: "TASK-002", Bucket: "QA", On: "TASK-001"}, {ID: "TASK-003", On: "TASK-002"}}, "TASK-002")
	if want := "TASK-001 [DONE] → TASK-002 [QA] (this) → TASK-003"; got != want {
		t.Fatalf("Draw = %q, want %q", got, want)
	}
}
