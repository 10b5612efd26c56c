package htmlreport

import (
	"math"
	"strconv"
	"time"
)

// The axes of the report's two charts: the approved-per-day chart's y axis
// (0, the maximum and a round value or two between), its baseline and the
// dates under its bars, and the timeline's time ticks. Everything is
// computed here, in pixels, so the page needs no script; the width of a
// label is estimated generously (labelCharW per character of the 11px
// font) so that no two labels overlap in any browser.

// Tick is a label on an axis at X (or Y), anchored as Anchor says (an SVG
// text-anchor chosen here: start, middle or end).
type Tick struct {
	X, Y   float64
	Label  string
	Anchor string
}

const (
	labelCharW = 7.0 // px a character of an 11px label takes at most
	labelGap   = 8.0 // px between two labels at least
	// maxDayLabels is how many dates the chart shows at most: the first,
	// the last and a few between.
	maxDayLabels = 7
	// maxTimeTicks is how many round times the timeline marks at most
	// between its start and end.
	maxTimeTicks = 8
)

func labelWidth(s string) float64 { return float64(len([]rune(s))) * labelCharW }

// extent is the span a label of Tick t covers on the x axis.
func (t Tick) extent() (float64, float64) {
	w := labelWidth(t.Label)
	switch t.Anchor {
	case "start":
		return t.X, t.X + w
	case "end":
		return t.X - w, t.X
	default:
		return t.X - w/2, t.X + w/2
	}
}

// spread picks which of n slots, step px apart, get a label at most w px
// wide: the first and the last, and between them as many evenly spaced
// ones as fit without overlapping (at most maxDayLabels in all). With no
// room for two, only the first.
func spread(n int, step, w float64) []int {
	switch {
	case n <= 0:
		return nil
	case n == 1:
		return []int{0}
	}
	stride := int(math.Ceil((w + labelGap) / step))
	if stride < 1 {
		stride = 1
	}
	gaps := (n - 1) / stride
	if gaps < 1 {
		return []int{0}
	}
	if gaps > maxDayLabels-1 {
		gaps = maxDayLabels - 1
	}
	out := make([]int, 0, gaps+1)
	for j := 0; j <= gaps; j++ {
		// Gaps of (n-1)/gaps rounded: each at least stride slots.
		out = append(out, (j*(n-1)+gaps/2)/gaps)
	}
	return out
}

// Throughput is the approved-per-day chart: a bar per day, the y axis
// with its labels, the baseline, and dates under some of the bars.
type Throughput struct {
	W, H int
	// The plot's box: Left (the y axis), Right, Top (the maximum) and
	// Base (the baseline, 0).
	Left, Right, Top, Base float64
	// TickEnd is where the marks under the baseline end.
	TickEnd float64
	Days    []DayCount
	YTicks  []Tick
	Dates   []Tick
	Max     int
	Caption string
}

// DayCount is one day's bar: N approved on Day, drawn at X, W wide, from
// Y down to the baseline (H high).
type DayCount struct {
	Day        string
	N          int
	X, W, Y, H float64
}

const (
	chartLeft  = 36.0  // the y axis, right of its labels
	chartPlotW = 880.0 // the bars' width in all
	chartTop   = 16.0  // room for a bar's count above the tallest
	chartPlotH = 100.0
)

// throughputChart draws the days days ending with now's (UTC), from
// perDay (approvals by "2006-01-02").
func throughputChart(perDay map[string]int, now time.Time, days int) Throughput {
	if days < 1 {
		days = 1
	}
	c := Throughput{Left: chartLeft, Right: chartLeft + chartPlotW, Top: chartTop, Base: chartTop + chartPlotH, Max: 1}
	c.W, c.H = int(c.Right)+10, int(c.Base)+44
	c.TickEnd = c.Base + 4
	type day struct {
		t time.Time
		n int
	}
	ds := make([]day, days)
	for i := range ds {
		t := now.UTC().AddDate(0, 0, i-(days-1))
		ds[i] = day{t, perDay[t.Format("2006-01-02")]}
		if ds[i].n > c.Max {
			c.Max = ds[i].n
		}
	}
	step := chartPlotW / float64(days)
	barW := math.Min(step*0.8, 24)
	for i, d := range ds {
		h := float64(d.n) * chartPlotH / float64(c.Max)
		c.Days = append(c.Days, DayCount{Day: d.t.Format("2006-01-02"), N: d.n,
			X: chartLeft + float64(i)*step + (step-barW)/2, W: barW, Y: c.Base - h, H: h})
	}
	for _, v := range valueTicks(c.Max) {
		c.YTicks = append(c.YTicks, Tick{X: chartLeft - 4, Y: c.Base - float64(v)*chartPlotH/float64(c.Max), Label: strconv.Itoa(v), Anchor: "end"})
	}
	// Dates as "Nov 24": the widest is as wide as any.
	for _, i := range spread(days, step, labelWidth("Nov 24")) {
		c.Dates = append(c.Dates, Tick{X: chartLeft + (float64(i)+0.5)*step, Y: c.Base + 14, Label: ds[i].t.Format("Jan 2"), Anchor: "middle"})
	}
	c.Caption = "approved per day, last " + strconv.Itoa(days) + " days (UTC)"
	if days == 1 {
		c.Caption = "approved today (UTC)"
	}
	return c
}

// valueTicks are the y axis's values for a maximum of max: 0, max, and
// the multiples of a round step (1, 2, 5, 10, 20, …) between them that
// leave room for a label (20 px of the plot's height) below max.
func valueTicks(max int) []int {
	if max < 1 {
		max = 1
	}
	step := 0
	for base := 1; step == 0; base *= 10 {
		for _, m := range []int{1, 2, 5} {
			if max/(base*m) <= 4 {
				step = base * m
				break
			}
		}
	}
	out := []int{0}
	for v := step; v < max; v += step {
		if float64(max-v)*chartPlotH/float64(max) >= 20 {
			out = append(out, v)
		}
	}
	return append(out, max)
}

// timeSteps are the round intervals the timeline may mark.
var timeSteps = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
	24 * time.Hour, 2 * 24 * time.Hour, 7 * 24 * time.Hour, 14 * 24 * time.Hour, 28 * 24 * time.Hour,
	91 * 24 * time.Hour, 364 * 24 * time.Hour,
}

// timeTicks labels a time axis from start (at x0) to end (at x0+width), in
// UTC: start and end themselves, and between them the round times of
// the smallest step that marks at most maxTimeTicks of them with room
// for their labels ("14:00"; a midnight as its date, "Nov 24"), less any
// label that would overlap its neighbour.
func timeTicks(start, end time.Time, x0, width float64) []Tick {
	start, end = start.UTC(), end.UTC()
	span := end.Sub(start)
	if span <= 0 {
		return []Tick{{X: x0, Label: start.Format("15:04:05"), Anchor: "start"}}
	}
	fits := int(width / (labelWidth("00:00:00")/2 + labelWidth("Nov 24")/2 + labelGap))
	if fits > maxTimeTicks {
		fits = maxTimeTicks
	}
	step := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if int(span/s) <= fits {
			step = s
			break
		}
	}
	clock := "15:04"
	if step < time.Minute {
		clock = "15:04:05"
	}
	edge := clock
	if span >= 24*time.Hour || start.YearDay() != end.YearDay() || start.Year() != end.Year() {
		edge = "Jan 2 " + clock
	}
	x := func(t time.Time) float64 { return x0 + float64(t.Sub(start))/float64(span)*width }
	first := Tick{X: x0, Label: start.Format(edge), Anchor: "start"}
	last := Tick{X: x0 + width, Label: end.Format(edge), Anchor: "end"}
	out := []Tick{first}
	_, right := first.extent()
	stop, _ := last.extent()
	for t := start.Truncate(step); !t.After(end); t = t.Add(step) {
		if !t.After(start) {
			continue
		}
		label := t.Format(clock)
		if t.Equal(t.Truncate(24 * time.Hour)) {
			label = t.Format("Jan 2")
		}
		tk := Tick{X: x(t), Label: label, Anchor: "middle"}
		l, r := tk.extent()
		if l < right+labelGap || r > stop-labelGap {
			continue
		}
		out = append(out, tk)
		right = r
	}
	return append(out, last)
}
