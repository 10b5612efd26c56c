package htmlreport

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/events"
)

func labels(ts []Tick) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Label)
	}
	return out
}

// apart fails when two labels of ts overlap or come out of order.
func apart(t *testing.T, what string, ts []Tick) {
	t.Helper()
	for i := 1; i < len(ts); i++ {
		_, r := ts[i-1].extent()
		l, _ := ts[i].extent()
		if l < r+labelGap {
			t.Errorf("%s: %q (ends at %.1f) and %q (starts at %.1f) overlap", what, ts[i-1].Label, r, ts[i].Label, l)
		}
	}
}

func TestThroughputChartLabelsItsAxes(t *testing.T) {
	for _, tc := range []struct {
		days        int
		perDay      map[string]int
		first, last string
		min, max    int // dates shown
		yLabels     []string
	}{
		{1, map[string]int{"2026-11-23": 3}, "Nov 23", "Nov 23", 1, 1, []string{"0", "1", "2", "3"}},
		{7, map[string]int{"2026-11-17": 1, "2026-11-20": 7}, "Nov 17", "Nov 23", 7, 7, []string{"0", "2", "4", "7"}},
		{60, map[string]int{"2026-09-25": 12, "2026-10-30": 1}, "Sep 25", "Nov 23", 4, maxDayLabels, []string{"0", "5", "12"}},
		{30, nil, "Oct 25", "Nov 23", 4, maxDayLabels, []string{"0", "1"}},
	} {
		c := throughputChart(tc.perDay, now, tc.days)
		ds := labels(c.Dates)
		if len(c.Days) != tc.days || len(ds) < tc.min || len(ds) > tc.max || ds[0] != tc.first || ds[len(ds)-1] != tc.last {
			t.Errorf("%d days: %d bars, dates %q", tc.days, len(c.Days), ds)
		}
		apart(t, "dates", c.Dates)
		// Each date sits under a bar, of the day it names.
		for _, d := range c.Dates {
			hit := false
			for _, b := range c.Days {
				day, _ := time.Parse("2006-01-02", b.Day)
				if d.X >= b.X && d.X <= b.X+b.W && day.Format("Jan 2") == d.Label {
					hit = true
				}
			}
			if !hit || d.Y <= c.Base {
				t.Errorf("%d days: date %q at (%.1f, %.1f) under no bar of its day", tc.days, d.Label, d.X, d.Y)
			}
		}
		if got := labels(c.YTicks); !reflect.DeepEqual(got, tc.yLabels) {
			t.Errorf("%d days: y labels %q, want %q", tc.days, got, tc.yLabels)
		}
		if y0, ymax := c.YTicks[0], c.YTicks[len(c.YTicks)-1]; y0.Y != c.Base || ymax.Y != c.Top {
			t.Errorf("%d days: 0 at %.1f (baseline %.1f), max at %.1f (top %.1f)", tc.days, y0.Y, c.Base, ymax.Y, c.Top)
		}
		for _, b := range c.Days {
			if b.Y+b.H != c.Base || b.X < c.Left || b.X+b.W > c.Right {
				t.Errorf("%d days: bar %+v off the baseline or the plot", tc.days, b)
			}
			if b.N == c.Max && b.Y != c.Top {
				t.Errorf("%d days: the tallest bar tops at %.1f, not at the max's label %.1f", tc.days, b.Y, c.Top)
			}
		}
	}
}

func TestValueTicksLeaveRoomUnderTheMaximum(t *testing.T) {
	for max, want := range map[int][]int{0: {0, 1}, 1: {0, 1}, 2: {0, 1, 2}, 4: {0, 1, 2, 3, 4}, 12: {0, 5, 12}, 100: {0, 50, 100}, 1234: {0, 500, 1234}} {
		if got := valueTicks(max); !reflect.DeepEqual(got, want) {
			t.Errorf("valueTicks(%d) = %v, want %v", max, got, want)
		}
	}
}

func TestTimeTicks(t *testing.T) {
	const x0, w = 180.0, 770.0
	for _, tc := range []struct {
		name       string
		start, end time.Time
		want       []string // in order, start and end included
		absent     []string
	}{
		{"2 hours", time.Date(2026, 11, 23, 12, 7, 0, 0, time.UTC), time.Date(2026, 11, 23, 14, 7, 0, 0, time.UTC),
			// 12:15 and 14:00 would overlap the start's and end's labels.
			[]string{"12:07", "12:30", "12:45", "13:00", "13:15", "13:30", "13:45", "14:07"}, []string{"12:15", "14:00", "Nov"}},
		{"3 days", time.Date(2026, 11, 20, 9, 15, 0, 0, time.UTC), time.Date(2026, 11, 23, 9, 15, 0, 0, time.UTC),
			[]string{"Nov 20 09:15", "Nov 21", "12:00", "Nov 22", "12:00", "Nov 23 09:15"}, nil},
		{"40 seconds", time.Date(2026, 11, 23, 23, 59, 50, 0, time.UTC), time.Date(2026, 11, 24, 0, 0, 30, 0, time.UTC),
			[]string{"Nov 23 23:59:50", "Nov 24 00:00:30"}, nil},
		// In a local zone, still labelled in UTC.
		{"local zone", time.Date(2026, 11, 23, 12, 7, 0, 0, time.FixedZone("X", 3600)), time.Date(2026, 11, 23, 14, 7, 0, 0, time.FixedZone("X", 3600)),
			[]string{"11:07", "12:00", "13:07"}, nil},
	} {
		ts := timeTicks(tc.start, tc.end, x0, w)
		got := labels(ts)
		if got[0] != tc.want[0] || got[len(got)-1] != tc.want[len(tc.want)-1] || ts[0].X != x0 || ts[len(ts)-1].X != x0+w {
			t.Errorf("%s: ticks %q, want start and end %q", tc.name, got, tc.want)
		}
		joined := "|" + strings.Join(got, "|") + "|"
		at := 0
		for _, l := range tc.want {
			i := strings.Index(joined[at:], "|"+l+"|")
			if i < 0 {
				t.Errorf("%s: ticks %q lack %q (in order)", tc.name, got, l)
				break
			}
			at += i + len(l) + 1
		}
		for _, l := range tc.absent {
			if strings.Contains(joined, l) {
				t.Errorf("%s: ticks %q hold %q", tc.name, got, l)
			}
		}
		apart(t, tc.name, ts)
		// A round tick stands where its time is.
		for _, tk := range ts[1 : len(ts)-1] {
			if tk.X <= x0 || tk.X >= x0+w || tk.Anchor != "middle" {
				t.Errorf("%s: tick %+v outside the axis", tc.name, tk)
			}
		}
		if len(ts) > maxTimeTicks+2 {
			t.Errorf("%s: %d ticks", tc.name, len(ts))
		}
	}
	if ts := timeTicks(now, now, x0, w); len(ts) != 1 {
		t.Errorf("an empty span: %+v", ts)
	}
}

func TestWriteHTMLDrawsTheAxes(t *testing.T) {
	b := testBoard(t)
	evs := tlEvents()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, b, evs); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{`<line class="baseline"`, `<text class="y-label" x="32.0" y="116.0" dy="4" text-anchor="end">0</text>`,
		`<text class="y-label" x="32.0" y="16.0" dy="4" text-anchor="end">1</text>`, `<text class="date"`, `>Oct 25</text>`, `>Nov 23</text>`,
		`<text class="tick" x="180.0" y="`, `text-anchor="start">Nov 21 12:00</text>`, `text-anchor="end">Nov 23 12:00</text>`, `>Nov 22</text>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func tlEvents() []events.Event {
	from := now.Add(-48 * time.Hour)
	return []events.Event{
		{TS: from, Task: sp("TASK-004"), Action: "claim", Actor: "a"},
		{TS: from.Add(time.Hour), Task: sp("TASK-004"), Action: "approve", Actor: "qa"},
		{TS: now.Add(-time.Hour), Task: sp("TASK-005"), Action: "claim", Actor: "a"},
		{TS: now.Add(-time.Minute), Task: sp("TASK-005"), Action: "approve", Actor: "qa"},
	}
}
