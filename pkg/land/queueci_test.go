package land

import "testing"

func TestQueueBranch(t *testing.T) {
	for id, want := range map[string]string{"TASK-007": "burl/queue/7", "TASK-1200": "burl/queue/1200"} {
		if got := queueBranch(id); got != want {
			t.Errorf("queueBranch(%s) = %s", id, got)
		}
	}
}
