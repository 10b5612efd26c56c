package land

import "slices"

// isStaged: task id is staged in the building batch or a car behind it
// (train.go), so its parent's landing leaves it to the queue, not to a restack.
func (q *queue) isStaged(id string) bool { return slices.Contains(q.stacked, id) }
