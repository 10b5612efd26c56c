package landforge

import "testing"

func TestQueueBranch(t *testing.T) {
	for id, want := range map[string]string{"TASK-007": "burl/queue/7", "TASK-1200": "burl/queue/1200"} {
		if got := QueueBranch(id); got != want {
			t.Errorf("QueueBranch(%s) = %s", id, got)
		}
	}
}
