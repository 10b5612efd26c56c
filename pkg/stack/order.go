package stack

import (
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// A stacked task whose parent is in the same approve --all goes into the
// queue right after it, and is staged on the parent's staged commit (in
// its batch when there is room, or behind it while it builds): one build
// for both, the parent landed first. Its own commits (stack_base..head)
// are replayed onto the parent's rebased or squashed commit, as a restack
// would replay them onto main once the parent landed.

// ChildAfterParent puts each task whose parent (stacked_on) is among ts right
// after that parent when the queue's order had it before, so that no
// child comes before its parent; the order is otherwise kept.
func ChildAfterParent(ts []*task.Task) []*task.Task {
	in := make(map[string]bool, len(ts))
	for _, t := range ts {
		in[t.ID()] = true
	}
	held := map[string][]*task.Task{}
	done := map[string]bool{}
	out := make([]*task.Task, 0, len(ts))
	var emit func(t *task.Task)
	emit = func(t *task.Task) {
		out = append(out, t)
		done[t.ID()] = true
		kids := held[t.ID()]
		delete(held, t.ID())
		for _, k := range kids {
			emit(k)
		}
	}
	for _, t := range ts {
		if p := t.Str(task.KeyStackedOn); p != "" && in[p] && !done[p] && p != t.ID() {
			held[p] = append(held[p], t)
			continue
		}
		emit(t)
	}
	// A cycle of stacked_on (a broken file) holds its tasks forever: they
	// go last, in the order they came, and wait for their parents there.
	for _, t := range ts {
		if !done[t.ID()] {
			out = append(out, t)
			done[t.ID()] = true
		}
	}
	return out
}

// WaitsOutside is why t cannot land in a queue run ("" when it can):
// stacked on a parent that is not DONE and that the run does not land
// before it (inRun: the parent is queued ahead of t, or staged below it).
func WaitsOutside(w *workflow.Workflow, t *task.Task, inRun func(id string) bool) string {
	if p := t.Str(task.KeyStackedOn); p != "" && inRun(p) {
		return ""
	}
	return Waits(w, t)
}
