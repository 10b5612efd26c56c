package land

import "slices"

// isStaged: task id is staged in the batch the queue is landing, or in a
// car behind it (train.go), on a commit main does not hold yet: its
// parent's landing leaves it to the queue, not to a restack.
func (q *queue) isStaged(id string) bool { return slices.Contains(q.stacked, id) }
