package htmlreport

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/board"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/workflow"
)

// now and testBoard are monitor's test board, for the report's tests.
var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func sp(s string) *string { return &s }

func testBoard(t *testing.T) *board.Board {
	dir := t.TempDir()
	file := filepath.Join(dir, "TASK-002.md")
	if err := os.WriteFile(file, []byte("---\nid: TASK-002\ntitle: Two\n---\n\nbody line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return &board.Board{
		Now:  now,
		Done: 1,
		Columns: map[workflow.Bucket][]board.Card{
			workflow.Ready: {
				{ID: "TASK-001", Priority: "high", Title: "One", Bucket: workflow.Ready, Since: now.Add(-3 * time.Minute)},
				{ID: "TASK-002", Priority: "medium", Title: "Two", Bucket: workflow.Ready, Since: now.Add(-2 * time.Hour), Waiting: []string{"TASK-003"}, DependsOn: []string{"TASK-003"}, Path: file},
			},
			workflow.Doing: {
				{ID: "TASK-003", Priority: "low", Title: "A title far too long to fit in a narrow column", Owner: "coder@host", Bucket: workflow.Doing,
					Since: now.Add(-90 * time.Second), Locked: true, LeaseExpired: true, Conflicts: []string{"main"}},
			},
			workflow.Done: {
				{ID: "TASK-004", Priority: "medium", Title: "Four", Bucket: workflow.Done, Since: now.Add(-time.Hour), Created: now.Add(-5 * time.Hour), Completed: now.Add(-time.Hour)},
			},
		},
		Runs: []board.Run{{Task: "TASK-003", Agent: "coder", Attempt: 1, Since: now.Add(-time.Minute), LastLine: "running tests"}},
		Tail: []events.Event{
			{TS: now.Add(-time.Minute), Task: sp("TASK-003"), Action: "run_start", Actor: "coder@host"},
		},
	}
}
