package monitor

import (
	"bytes"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/htmlreport"
	"github.com/burl-dev/burl/pkg/workflow"
)

// A stacked task's card names its parent as the chain's previous link,
// on the board and in the HTML report, escaped as task data is.
func TestAStackedCardIsDrawnOnItsParent(t *testing.T) {
	b := testBoard(t)
	b.Columns[workflow.Doing][0].StackedOn = "TASK-001"
	var snap bytes.Buffer
	Snapshot(&snap, b, 80)
	if !strings.Contains(snap.String(), "↳ on TASK-001") {
		t.Errorf("snapshot lacks the chain marker:\n%s", snap.String())
	}
	b.Columns[workflow.Doing][0].StackedOn = "TASK-<i>"
	var page bytes.Buffer
	if err := htmlreport.WriteHTML(&page, b, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `<div class="meta stack">↳ on TASK-&lt;i&gt;</div>`) {
		t.Errorf("report lacks the escaped chain marker")
	}
	if strings.Count(page.String(), `class="meta stack"`) != 1 {
		t.Errorf("the chain marker is drawn on an unstacked card")
	}
}
