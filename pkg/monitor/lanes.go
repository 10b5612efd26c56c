package monitor

import "github.com/burl-dev/burl/pkg/workflow"

// lanes are the board's columns: the five buckets of PRD 9.1, and
// PROPOSED once an agent proposed a task (DESIGN §27), so that a board
// without proposals looks as it always did.
func (b *Board) lanes() []workflow.Bucket {
	if b == nil || len(b.Columns[workflow.Proposed]) == 0 {
		return workflow.Lanes
	}
	return workflow.Buckets
}
