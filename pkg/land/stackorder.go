package land

import (
	"slices"

	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// A stacked task (DESIGN §26) whose parent is in the same approve --all
// goes into the queue right after it, and is staged in the same batch on
// the parent's staged commit when the batch has room: one build for both,
// landed parent first. Its own commits (stack_base..head) are replayed
// onto the parent's rebased or squashed commit (rebaseOwn), as a restack
// would replay them onto main once the parent landed. Bisection keeps the
// culprit's blame: a failing child is rejected alone under its landed
// parent; a failing parent sends its child back to wait for it.

// childAfterParent puts each task whose parent (stacked_on) is among ts right
// after that parent when the queue's order had it before, so that no
// child comes before its parent; the order is otherwise kept.
func childAfterParent(ts []*task.Task) []*task.Task {
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

// waitsOutside is why t cannot land in this queue run ("" when it can):
// stacked on a parent that is not DONE and that the run does not land
// before it (inRun: the parent is queued ahead of t, or staged below it).
func waitsOutside(w *workflow.Workflow, t *task.Task, inRun func(id string) bool) string {
	if p := t.Str(task.KeyStackedOn); p != "" && inRun(p) {
		return ""
	}
	return stack.Waits(w, t)
}

// isStaged: task id is staged in the batch the queue is landing, on a
// commit main does not hold yet (its parent's landing leaves it to the
// queue, not to a restack).
func (q *queue) isStaged(id string) bool { return slices.Contains(q.stacked, id) }
