package stack

import "testing"

func TestDrawMarksTheTaskAndItsLinks(t *testing.T) {
	got := Draw([]Link{{"TASK-001", "DONE"}, {"TASK-002", "QA"}, {"TASK-003", ""}}, "TASK-002")
	if want := "TASK-001 [DONE] → TASK-002 [QA] (this) → TASK-003"; got != want {
		t.Fatalf("Draw = %q, want %q", got, want)
	}
}
