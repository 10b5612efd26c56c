package monitor

import (
	"bytes"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/board"
	"github.com/burl-dev/burl/pkg/htmlreport"
	"github.com/burl-dev/burl/pkg/workflow"
)

func blockedDepBoard(t *testing.T) *board.Board {
	b := testBoard(t)
	// TASK-002 waits for TASK-003 (DOING) and TASK-006 (BLOCKED).
	c := &b.Columns[workflow.Ready][1]
	c.DependsOn = []string{"TASK-003", "TASK-006"}
	c.Waiting = []string{"TASK-003", "TASK-006"}
	c.BlockedDeps = []string{"TASK-006"}
	b.Columns[workflow.Blocked] = []board.Card{{ID: "TASK-006", Priority: "medium", Title: "Six", Bucket: workflow.Blocked, Since: now, Reason: "needs the vendor's key"}}
	return b
}

func TestAReadyTaskWaitingOnABlockedTaskIsMarkedApart(t *testing.T) {
	for _, tc := range []struct {
		c    board.Card
		want string
	}{
		{board.Card{Waiting: []string{"a"}}, "W"},
		{board.Card{Waiting: []string{"a", "b"}, BlockedDeps: []string{"b"}}, "B!"},
		{board.Card{Locked: true, Conflicts: []string{"x"}, Waiting: []string{"b"}, BlockedDeps: []string{"b"}}, "LCB!"},
	} {
		if got := tc.c.Markers(); got != tc.want {
			t.Errorf("Markers of %+v = %q, want %q", tc.c, got, tc.want)
		}
	}
	b := blockedDepBoard(t)
	var buf bytes.Buffer
	Snapshot(&buf, b, 100)
	if out := buf.String(); !strings.Contains(out, "TASK-002 m B!") || strings.Contains(out, "TASK-002 m W") {
		t.Errorf("snapshot:\n%s", out)
	}
	// The terminal board draws it as a warning (W alone is not one).
	warn := func(s string) string { return "<" + s + ">" }
	ls := columnLines(b, workflow.Ready, 30, 0, -1, style{plain, plain, warn, plain})
	if !strings.HasPrefix(ls[3], "<TASK-002 m B!") {
		t.Errorf("B! not drawn as a warning: %q", ls)
	}
	// Enter names the BLOCKED dependency, its reason, and what to run.
	m := newTestModel(t, b)
	m.Update(key("down"))
	m.Update(key("enter"))
	v := m.View()
	for _, want := range []string{"B! waits for TASK-006, which is BLOCKED: a human must act", "TASK-006 blocked: needs the vendor's key",
		"git burl show TASK-006 says why", "id: TASK-002"} {
		if !strings.Contains(v, want) {
			t.Errorf("detail view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "TASK-003, which is BLOCKED") {
		t.Errorf("the DOING dependency is called BLOCKED:\n%s", v)
	}
	// A task waiting on ordinary work says nothing of the kind.
	m = newTestModel(t, testBoard(t))
	m.Update(key("down"))
	m.Update(key("enter"))
	if v := m.View(); strings.Contains(v, "BLOCKED") {
		t.Errorf("detail view of a W task:\n%s", v)
	}
	// The report's card says it too.
	buf.Reset()
	if err := htmlreport.WriteHTML(&buf, b, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<span class="mark">B!</span>`, "waits for TASK-003, TASK-006 (TASK-006 BLOCKED: a human must act)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
