package monitor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/board"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/htmlreport"
	"github.com/burl-dev/burl/pkg/workflow"
)

const prURL = "http://127.0.0.1:1/burl/demo/pulls/7"

// prBoard is the test board with TASK-005 in QA, its pull request #7
// open, and TASK-004 (DONE) landed through #6.
func prBoard(t *testing.T) *board.Board {
	b := testBoard(t)
	file := filepath.Join(t.TempDir(), "TASK-005.md")
	if err := os.WriteFile(file, []byte("---\nid: TASK-005\ntitle: Five\npr_number: 7\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Columns[workflow.QA] = []board.Card{{ID: "TASK-005", Priority: "medium", Title: "Five", Owner: "coder@host", Bucket: workflow.QA,
		Since: now.Add(-time.Minute), Path: file, PRNumber: 7, PRURL: prURL, PRState: board.PROpen}}
	d := &b.Columns[workflow.Done][0]
	d.PRNumber, d.PRURL, d.PRState, d.Path = 6, "https://forge.example/burl/demo/pulls/6", board.PRMerged, file
	return b
}

func TestBoardMarksTheOpenPullRequest(t *testing.T) {
	var buf bytes.Buffer
	Snapshot(&buf, prBoard(t), 80)
	out := buf.String()
	if !strings.Contains(out, " 1m PR #7 @cod") {
		t.Fatalf("QA card lacks PR #7 before its owner:\n%s", out)
	}
	// The board marks QA only: DONE says how it landed in its view.
	if strings.Contains(out, "PR #6") {
		t.Fatalf("DONE card marked:\n%s", out)
	}
}

func TestTaskViewShowsThePullRequestsStateAndURL(t *testing.T) {
	m := newTestModel(t, prBoard(t))
	m.Update(key("right"))
	m.Update(key("right"))
	if c, _ := m.Selected(); c.ID != "TASK-005" {
		t.Fatalf("selected %s", c.ID)
	}
	m.Update(key("enter"))
	v := m.View()
	if !strings.Contains(v, "PR #7 open: "+prURL) || !strings.Contains(v, "id: TASK-005") {
		t.Fatalf("QA task view:\n%s", v)
	}
	m.Update(key("esc"))
	m.Update(key("right"))
	m.Update(key("enter"))
	if v := m.View(); !strings.Contains(v, "merged via PR #6: https://forge.example/burl/demo/pulls/6") {
		t.Fatalf("DONE task view:\n%s", v)
	}
}

func TestPRLinkIsOnlyPlainHTTP(t *testing.T) {
	for u, link := range map[string]bool{
		prURL:                                  true,
		"https://forge.example/o/r/pull/3":     true,
		"HTTPS://forge.example/o/r/pull/3":     true,
		"javascript:alert(1)":                  false,
		"JavaScript:alert(document.domain)":    false,
		"data:text/html,<script>x</script>":    false,
		"//forge.example/o/r/pull/3":           false,
		"http:///pull/3":                       false,
		"https://user:pw@forge.example/p/3":    false,
		`https://forge.example/"onmouseover=x`: false,
		`http://x/\x1b[2J`:                     false,
		"ftp://forge.example/p/3":              false,
		"":                                     false,
	} {
		c := board.Card{PRNumber: 3, PRURL: u}
		if got := c.PRLink() != ""; got != link {
			t.Errorf("PRLink(%q) links: %v, want %v", u, got, link)
		}
	}
	if (board.Card{PRURL: prURL}).PRLink() != "" {
		t.Error("a URL without a number links")
	}
}

func TestWriteHTMLLinksTheOpenAndMergedPullRequests(t *testing.T) {
	b := prBoard(t)
	var buf bytes.Buffer
	if err := htmlreport.WriteHTML(&buf, b, nil); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`<div class="meta pr"><a href="` + prURL + `" rel="noopener noreferrer">PR #7</a> open</div>`,
		`<div class="meta pr"><a href="https://forge.example/burl/demo/pulls/6" rel="noopener noreferrer">PR #6</a> merged</div>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if n := strings.Count(page, "href="); n != 2 {
		t.Errorf("%d links, want the 2 pull requests", n)
	}
}

func TestWriteHTMLShowsAnUnsafePRURLAsText(t *testing.T) {
	b := prBoard(t)
	b.Columns[workflow.QA][0].PRURL = `javascript:alert(1)//"><script>x</script>`
	b.Columns[workflow.Done] = nil
	var buf bytes.Buffer
	if err := htmlreport.WriteHTML(&buf, b, nil); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"href=", "<script>", "<a "} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	if want := `<div class="meta pr">PR #7 (javascript:alert(1)//&#34;&gt;&lt;script&gt;x&lt;/script&gt;) open</div>`; !strings.Contains(page, want) {
		t.Errorf("page lacks %s", want)
	}
}

func prEv(action string, d map[string]any) events.Event {
	return events.Event{TS: now, Task: sp("TASK-003"), Action: action, Actor: "qa@host", Details: d}
}

func TestPullRequestEventsRead(t *testing.T) {
	for _, tc := range []struct {
		e    events.Event
		want string
	}{
		{prEv("pr_open", map[string]any{"number": 3.0, "url": prURL, "head": "abc", "base": "def"}), "12:00:00 TASK-003 PR #3 opened · qa@host"},
		{prEv("pr_merged", map[string]any{"number": 3.0, "merged_sha": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678", "how": "ancestry"}), "12:00:00 TASK-003 PR #3 merged (a1b2c3d4e5) · qa@host"},
		{prEv("pr_closed", map[string]any{"number": 3.0, "reason": "pull request #3 closed: not\nwanted"}), "12:00:00 TASK-003 PR #3 closed: not wanted · qa@host"},
		{prEv("pr_closed", map[string]any{"number": 3.0, "reason": "pull request #3 closed"}), "12:00:00 TASK-003 PR #3 closed · qa@host"},
		{prEv("pr_changes_requested", map[string]any{"number": 3.0, "reason": "pull request #3: changes requested: add a test"}), "12:00:00 TASK-003 PR #3 changes requested: add a test · qa@host"},
		{prEv("pr_closed", map[string]any{"number": 3.0, "reason": "\x1b[2J"}), `12:00:00 TASK-003 PR #3 closed: \x1b[2J · qa@host`},
		{prEv("pr_open", nil), "12:00:00 TASK-003 PR opened · qa@host"},
		{prEv("block", map[string]any{"reason": "waits"}), "12:00:00 block TASK-003 qa@host: waits"},
	} {
		if got := eventLine(tc.e); got != tc.want {
			t.Errorf("eventLine(%s) = %q, want %q", tc.e.Action, got, tc.want)
		}
	}
}

func TestReportCountsAPullRequestsMergeAsLanding(t *testing.T) {
	b := prBoard(t)
	evs := []events.Event{
		{TS: now.Add(-3 * time.Hour), Task: sp("TASK-004"), Action: "claim", Actor: "w"},
		{TS: now.Add(-2 * time.Hour), Task: sp("TASK-004"), Action: "pr_open", Actor: "qa", Details: map[string]any{"number": 6.0}},
		{TS: now.Add(-time.Hour), Task: sp("TASK-004"), Action: "pr_merged", Actor: "qa", Details: map[string]any{"number": 6.0, "merged_sha": "a1b2c3d4e5"}},
	}
	b.Tail = evs
	var buf bytes.Buffer
	if err := htmlreport.WriteHTML(&buf, b, evs); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`<rect class="done"`, "Cycle time (first claim → DONE), median / p90</th><td>2h0m0s / 2h0m0s",
		"TASK-004 PR #6 merged (a1b2c3d4e5) · qa</li>", "TASK-004 PR #6 opened · qa</li>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
