package task

// QueueLess is the merge queue's order: priority (critical first), then
// submitted_at (older first), then the ID's number: submitted_at has whole
// seconds, and tasks submitted in the same second still land in one
// order on every machine.
func QueueLess(a, b *Task) bool {
	ra, rb := PriorityRank(a.Priority()), PriorityRank(b.Priority())
	if ra != rb {
		return ra < rb
	}
	if sa, sb := a.Str(KeySubmittedAt), b.Str(KeySubmittedAt); sa != sb {
		return sa < sb
	}
	na, _ := IDNumber(a.ID())
	nb, _ := IDNumber(b.ID())
	return na < nb
}
