package monitor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/burl-dev/burl/pkg/board"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/htmlreport"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/next"
	"github.com/burl-dev/burl/pkg/workflow"
)

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

func TestMarkers(t *testing.T) {
	c := board.Card{Locked: true, Stalled: true, LeaseExpired: true, Holder: lease.Status{State: lease.Expired}, Conflicts: []string{"x"}, Waiting: []string{"y"}}
	if got := c.Markers(); got != "LSEXCW" {
		t.Fatalf("Markers = %q", got)
	}
	if got := (board.Card{}).Markers(); got != "" {
		t.Fatalf("Markers of a plain card = %q", got)
	}
}

func TestSnapshotFitsAndShowsEverything(t *testing.T) {
	var buf bytes.Buffer
	Snapshot(&buf, testBoard(t), 80)
	out := buf.String()
	for _, want := range []string{"READY 2", "DOING 1", "DONE 1", "BLOCKED 0", "TASK-001 h", " 3m", "TASK-002 m W", " 2h",
		"TASK-003 l LEC", " 1m @coder@host", "RUNNING 1", "TASK-003 coder#1 1m  running tests", "run_start TASK-003 coder@host"} {
		if !strings.Contains(out, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if w := lipgloss.Width(l); w > 80 {
			t.Errorf("line of %d cells: %q", w, l)
		}
		if strings.ContainsRune(l, 0x1b) {
			t.Errorf("escape sequence in the snapshot: %q", l)
		}
	}
}

func TestRenderHeightIsExact(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 60}, {40, 10}} {
		ls := render(testBoard(t), layout{width: size[0], height: size[1], selecting: true, footer: keysHelp}, plainStyle)
		if len(ls) != size[1] {
			t.Errorf("%v: %d lines", size, len(ls))
		}
		if !strings.Contains(ls[len(ls)-1], "q quit") {
			t.Errorf("%v: last line %q", size, ls[len(ls)-1])
		}
	}
}

func TestColumnScrollsToTheSelection(t *testing.T) {
	b := &board.Board{Now: now, Columns: map[workflow.Bucket][]board.Card{}}
	for i := 0; i < 30; i++ {
		b.Columns[workflow.Ready] = append(b.Columns[workflow.Ready], board.Card{ID: "TASK-" + string(rune('A'+i)), Title: "t"})
	}
	sel := func(s string) string { return "[" + s + "]" }
	ls := columnLines(b, workflow.Ready, 20, 8, 25, style{plain, sel, plain, plain})
	joined := strings.Join(ls, "\n")
	if !strings.Contains(joined, "[▌TASK-Z") || !strings.Contains(joined, "↑") || len(ls) > 8 {
		t.Fatalf("selected card 25 not in view:\n%s", joined)
	}
}

func newTestModel(t *testing.T, b *board.Board) *Model {
	ch := make(chan struct{})
	m := NewModel(func() (*board.Board, error) { return b, nil }, ch, false)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Update(boardMsg{b: b})
	return m
}

func key(s string) tea.KeyMsg {
	switch s {
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

func TestModelSelectsWithArrowsAndStaysOnCards(t *testing.T) {
	m := newTestModel(t, testBoard(t))
	check := func(want string) {
		t.Helper()
		c, ok := m.Selected()
		if want == "" {
			if ok {
				t.Fatalf("selected %s, want none", c.ID)
			}
			return
		}
		if !ok || c.ID != want {
			t.Fatalf("selected %q (%v), want %s", c.ID, ok, want)
		}
	}
	check("TASK-001")
	m.Update(key("down"))
	check("TASK-002")
	m.Update(key("down")) // past the last card: stays
	check("TASK-002")
	m.Update(key("right"))
	check("TASK-003")
	m.Update(key("right")) // QA is empty
	check("")
	m.Update(key("right"))
	check("TASK-004")
	m.Update(key("left"))
	m.Update(key("left"))
	m.Update(key("up"))
	check("TASK-003")
}

func TestModelEnterShowsTheTaskAndEscReturns(t *testing.T) {
	m := newTestModel(t, testBoard(t))
	m.Update(key("down"))
	m.Update(key("enter"))
	if v := m.View(); !strings.Contains(v, "id: TASK-002") || !strings.Contains(v, "body line") || strings.Contains(v, "READY 2") {
		t.Fatalf("detail view:\n%s", v)
	}
	m.Update(key("esc"))
	if v := m.View(); !strings.Contains(v, "READY 2") {
		t.Fatalf("board not back:\n%s", v)
	}
}

func TestModelQuits(t *testing.T) {
	m := newTestModel(t, testBoard(t))
	_, cmd := m.Update(key("q"))
	if cmd == nil {
		t.Fatal("q returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q does not quit")
	}
	m.Update(key("enter"))
	if _, cmd := m.Update(key("q")); cmd == nil {
		t.Fatal("q in the task view does not quit")
	}
}

func TestModelReloadsOnChangeOnceAtATime(t *testing.T) {
	b := testBoard(t)
	loads := 0
	ch := make(chan struct{})
	m := NewModel(func() (*board.Board, error) { loads++; return b, nil }, ch, false)
	m.Update(boardMsg{b: b}) // Init's read done
	if _, cmd := m.Update(changedMsg{}); cmd == nil || !m.loading {
		t.Fatal("a change starts no read")
	}
	// Another change while reading: no second read now, one after.
	if _, cmd := m.Update(changedMsg{}); cmd == nil || !m.dirty {
		t.Fatal("a change during a read is lost")
	}
	_, cmd := m.Update(boardMsg{b: b})
	if cmd == nil || !m.loading || m.dirty {
		t.Fatal("no read after the one in flight")
	}
	if msg := cmd(); msg.(boardMsg).b != b || loads != 1 {
		t.Fatalf("read returned %v after %d loads", msg, loads)
	}
}

func TestWriteHTMLEscapesTaskDataAndFetchesNothing(t *testing.T) {
	b := testBoard(t)
	b.Columns[workflow.Ready][0].Title = `"><script>alert(1)</script><svg onload=x>`
	b.Columns[workflow.Ready][1].DependsOn = []string{"TASK-001"}
	claimed := now.Add(-2 * time.Hour)
	evs := []events.Event{
		{TS: claimed, Task: sp("TASK-004"), Action: "claim", Actor: `w"><b>`},
		{TS: now.Add(-time.Hour), Task: sp("TASK-004"), Action: "approve", Actor: "qa"},
		{TS: now.Add(-time.Minute), Task: sp("TASK-003"), Action: "claim", Actor: "coder@host"},
	}
	var buf bytes.Buffer
	if err := htmlreport.WriteHTML(&buf, b, evs); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"<script>", `w"><b>`, "http://", "https://", "src=", "href="} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "w&#34;&gt;&lt;b&gt;", `<rect class="done"`, `<rect class="open"`,
		"Cycle time (first claim → DONE), median / p90</th><td>1h0m0s / 1h0m0s", "Lead time (created → DONE), median / p90</th><td>4h0m0s",
		`class="node node-READY waiting"`, `class="edge"`, "TASK-003 · coder #1"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// A run whose watcher died is lost, not running: on the board, in the
// report's list, and in the timeline, whose bar ends at its last event.
func TestALostRunIsNotShownRunning(t *testing.T) {
	b := testBoard(t)
	c := &b.Columns[workflow.Doing][0]
	c.Holder = lease.Status{State: lease.Dead, Holder: "coder@host#77.1", PID: 77, Why: "process 77 exited"}
	c.Next = next.Step{State: next.Lost, Command: "git burl release TASK-003"}
	r := b.Runs[0]
	r.Lost, r.Next, r.Until = c.Holder.Describe(), c.Next, now.Add(-40*time.Second)
	b.Runs, b.Lost = nil, []board.Run{r}
	var buf bytes.Buffer
	Snapshot(&buf, b, 160)
	out := buf.String()
	for _, want := range []string{"0 running · 1 lost", "RUNNING 0 · LOST 1", "TASK-003 coder#1 LOST after 20s: holder coder@host#77 is gone (process 77 exited) · next: git burl release TASK-003",
		"TASK-003 l LEXC"} {
		if !strings.Contains(out, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, out)
		}
	}
	evs := []events.Event{
		{TS: now.Add(-10 * time.Minute), Task: sp("TASK-003"), Action: "claim", Actor: "coder@host"},
		{TS: now.Add(-9 * time.Minute), Task: sp("TASK-003"), Action: "lease", Actor: "coder@host"},
	}
	buf.Reset()
	if err := htmlreport.WriteHTML(&buf, b, evs); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`<rect class="lost"`, `<li class="lost">TASK-003 · coder #1 · LOST at 11:59:20`, "holder coder@host#77 is gone (process 77 exited)",
		"next: <code>git burl release TASK-003</code>", `(11-23 11:50:00 → 11-23 11:51:00)`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, `<rect class="open"`) {
		t.Error("the lost run is drawn going on")
	}
}

func TestWrapLinesKeepsEveryCharacter(t *testing.T) {
	long := "blocked_reason: " + strings.Repeat("x", 50) + "END"
	got := wrapLines([]string{"short", long}, 20)
	if got[0] != "short" || len(got) < 4 {
		t.Fatalf("wrapLines = %q", got)
	}
	joined := got[1]
	for _, l := range got[2:] {
		if len([]rune(l)) > 20 || !strings.HasPrefix(l, "  ") {
			t.Fatalf("continuation %q", l)
		}
		joined += strings.TrimPrefix(l, "  ")
	}
	if joined != long {
		t.Fatalf("lost characters: %q", joined)
	}
}
