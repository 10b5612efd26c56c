package budget

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/events"
)

func TestTodaySumsTheDaysCostsOnly(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	write := func(day time.Time, lines string) {
		p := events.Path(dir, day)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(now.Add(-24*time.Hour), `{"ts":"2026-11-27T23:59:00Z","task":"TASK-001","action":"run_end","details":{"usage":{"cost_usd":5}}}`+"\n")
	write(now, `{"ts":"2026-11-28T01:00:00Z","task":"TASK-001","action":"run_end","details":{"usage":{"cost_usd":0.1}}}
{"ts":"2026-11-28T02:00:00Z","task":"TASK-002","action":"claim","details":{}}
{"ts":"2026-11-28T03:00:00Z","task":"TASK-002","action":"review","details":{"usage":{"cost_usd":0.2,"model":"m"}}}
not json "cost_usd"
`)
	st, err := Today(dir, 0.3, now)
	if err != nil {
		t.Fatal(err)
	}
	if st.SpentUSD != 0.3 || !st.Reached || st.Day != "2026-11-28" {
		t.Errorf("got %+v", st)
	}
	if st, _ := Today(dir, 0, now); st.Reached || st.SpentUSD != 0 {
		t.Errorf("no cap: got %+v", st)
	}
	if got := Raise(State{LimitUSD: 1, SpentUSD: 1.2}); got != 2.2 {
		t.Errorf("Raise = %v", got)
	}
}
