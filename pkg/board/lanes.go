package board

import "github.com/burl-dev/burl/pkg/workflow"

// Lanes are the board's columns: the five buckets of PRD 9.1, and
// PROPOSED once an agent proposed a task (DESIGN §27), so that a board
// without proposals looks as it always did.
func (b *Board) Lanes() []workflow.Bucket {
	if b == nil || len(b.Columns[workflow.Proposed]) == 0 {
		return workflow.Lanes
	}
	return workflow.Buckets
}

// Total is how many tasks the board holds, DONE counted whole.
func (b *Board) Total() int {
	n := 0
	for _, bk := range b.Lanes() {
		n += b.Count(bk)
	}
	return n
}

// Count is how many tasks bucket bk holds: DONE's column may hold only the
// most recent.
func (b *Board) Count(bk workflow.Bucket) int {
	if bk == workflow.Done {
		return b.Done
	}
	return len(b.Columns[bk])
}
