package task

// QueueLess is the merge queue's order: priority (critical first), then
// submitted_at (older first). approve --all and watch's auto_approve both
// land QA tasks in this order.
func QueueLess(a, b *Task) bool {
	ra, rb := PriorityRank(a.Priority()), PriorityRank(b.Priority())
	if ra != rb {
		return ra < rb
	}
	return a.Str(KeySubmittedAt) < b.Str(KeySubmittedAt)
}
