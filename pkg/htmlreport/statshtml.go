package htmlreport

import (
	"fmt"
	"io"
	"time"

	"github.com/burl-dev/burl/pkg/board"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/stats"
)

// worth is the report's "which agent is worth its money" section: git burl
// stats --by agent's table, and a chart of each agent's cost per landed
// task beside what it spent on work that landed nothing.
type worth struct {
	Rows  []stats.Row // the total first
	Bars  []worthBar
	W, H  int
	Scale string // the largest cost drawn, labelled at the axis' end
}

type worthBar struct {
	Key          string
	Y            int
	Cost, Wasted int // bar lengths in pixels
	CostLabel    string
	Yield        string
}

const (
	worthLabelW = 140
	worthBarW   = 480
	worthLaneH  = 30
)

// WriteReport is WriteHTML with the stats of the same log (nil: none).
func WriteReport(out io.Writer, b *board.Board, evs []events.Event, st *stats.Report) error {
	return write(out, b, evs, st)
}

func worthOf(st *stats.Report) *worth {
	if st == nil {
		return nil
	}
	wv := &worth{Rows: append([]stats.Row{st.Total}, st.Groups...), W: worthLabelW + worthBarW + 160}
	max := 0.0
	for _, g := range st.Groups {
		c := 0.0
		if g.CostPerLandedUSD != nil {
			c = *g.CostPerLandedUSD
		}
		max = maxf(max, maxf(c, g.SpendLandedNothingUSD))
	}
	for i, g := range st.Groups {
		bar := worthBar{Key: g.Key, Y: 10 + i*worthLaneH, CostLabel: "no task landed", Yield: "—"}
		if g.CostPerLandedUSD != nil {
			bar.CostLabel = dollars(*g.CostPerLandedUSD) + " per landed task"
			bar.Cost = px(*g.CostPerLandedUSD, max)
		}
		if g.FirstPassYield != nil {
			bar.Yield = percent(*g.FirstPassYield)
		}
		bar.Wasted = px(g.SpendLandedNothingUSD, max)
		wv.Bars = append(wv.Bars, bar)
	}
	wv.H = 30 + len(st.Groups)*worthLaneH
	wv.Scale = dollars(max)
	return wv
}

func dollars(f float64) string { return fmt.Sprintf("$%.2f", f) }

// twoPlaces is a ratio of the table, "—" when there is none.
func twoPlaces(f *float64) string {
	if f == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *f)
}

func percent(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }

func seconds(s float64) string { return (time.Duration(s) * time.Second).String() }

func px(v, max float64) int {
	if max <= 0 {
		return 0
	}
	return int(v / max * worthBarW)
}

func maxf(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}
