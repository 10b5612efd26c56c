package stack

import (
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/task"
)

func TestChildAfterParent(t *testing.T) {
	mk := func(id, on string) *task.Task {
		fm := "id: " + id + "\ntitle: t\n"
		if on != "" {
			fm += "stacked_on: " + on + "\n"
		}
		tk, err := task.Parse([]byte("---\n" + fm + "---\n"))
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	ids := func(ts []*task.Task) string {
		var s []string
		for _, x := range ts {
			s = append(s, x.ID())
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		in   []*task.Task
		want string
	}{
		// A child the queue's order had first goes right after its
		// parent; its own child after it.
		{[]*task.Task{mk("TASK-3", "TASK-2"), mk("TASK-2", "TASK-1"), mk("TASK-4", ""), mk("TASK-1", "")}, "TASK-4,TASK-1,TASK-2,TASK-3"},
		// A child already after its parent keeps its place.
		{[]*task.Task{mk("TASK-1", ""), mk("TASK-4", ""), mk("TASK-2", "TASK-1")}, "TASK-1,TASK-4,TASK-2"},
		// A parent outside the run: the child keeps its place.
		{[]*task.Task{mk("TASK-2", "TASK-9"), mk("TASK-1", "")}, "TASK-2,TASK-1"},
		// A cycle (a broken file) keeps every task, last.
		{[]*task.Task{mk("TASK-1", "TASK-2"), mk("TASK-2", "TASK-1"), mk("TASK-3", "")}, "TASK-3,TASK-1,TASK-2"},
	} {
		if got := ids(ChildAfterParent(c.in)); got != c.want {
			t.Errorf("ChildAfterParent(%s) = %s, want %s", ids(c.in), got, c.want)
		}
	}
}
