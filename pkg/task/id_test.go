package task

import "testing"

func TestIDNumber(t *testing.T) {
	for in, want := range map[string]int{"TASK-001": 1, "TASK-1000": 1000, "TASK-123456789": 123456789} {
		if n, ok := IDNumber(in); !ok || n != want {
			t.Fatalf("%s: %d %v", in, n, ok)
		}
	}
	for _, in := range []string{"TASK-01", "TASK-1234567890", "TASK-00a", "task-001", "TASK-+01", "TASK- 01", "XTASK-001", "TASK-001 ", ""} {
		if _, ok := IDNumber(in); ok {
			t.Fatalf("%q accepted", in)
		}
	}
}
