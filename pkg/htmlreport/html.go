package htmlreport

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"time"

	"github.com/burl-dev/burl/pkg/board"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/stats"
	"github.com/burl-dev/burl/pkg/workflow"
)

// The report is one page with its CSS inline and its pictures as inline
// SVG: nothing is fetched. Task data only ever lands in text nodes
// (html/template escapes them); SVG attributes hold numbers and class
// names chosen here (golang/go #80158: some SVG attributes are not
// escaped as URLs). The one exception is a pull request's link, an <a
// href> in HTML (not SVG), and only for a URL Card.PRLink found to be
// plain http(s); any other pr_url is shown as text.

// Bar is one task's stretch from claim to DONE (or to now) on a worker's lane.
type Bar struct {
	ID, Title, Class string
	X, W             float64
	Label            string
}

// Lane is one worker's row of the timeline.
type Lane struct {
	Worker string
	Y      int
	Bars   []Bar
}

// Node and Edge draw the dependency graph.
type Node struct {
	ID, Title, Class string
	X, Y             int
}

type Edge struct{ X1, Y1, X2, Y2 int }

type report struct {
	Board     *board.Board
	Generated string
	Columns   []column
	Lanes     []Lane
	TimelineW int
	TimelineH int
	TimeFrom  string
	TimeTo    string
	// TimeTicks label the timeline's axis at TimeAxisY.
	TimeTicks   []Tick
	TimeAxisY   int
	Nodes       []Node
	Edges       []Edge
	GraphW      int
	GraphH      int
	Throughput  Throughput
	Done        int
	Landed      int
	LeadMedian  string
	LeadP90     string
	CycleMedian string
	CycleP90    string
	Waiting     int
	// Recent is the tail of the event log, newest first.
	Recent []events.Event
	// Worth is git burl stats --by agent's table and chart (nil: none).
	Worth *worth
}

type column struct {
	Name  string
	Cards []board.Card
	More  int
}

const (
	laneH      = 26
	timelineW  = 960
	labelW     = 180
	maxBars    = 400
	nodeW      = 150
	nodeH      = 34
	maxNodes   = 300
	throughDay = 30
)

// WriteHTML writes the report of b, with figures from evs (the whole log).
func WriteHTML(out io.Writer, b *board.Board, evs []events.Event) error {
	return write(out, b, evs, nil)
}

func write(out io.Writer, b *board.Board, evs []events.Event, st *stats.Report) error {
	r := report{Board: b, Generated: b.Now.UTC().Format("2006-01-02 15:04:05 UTC"), Worth: worthOf(st)}
	for _, bk := range b.Lanes() {
		cs := b.Columns[bk]
		col := column{Name: string(bk), Cards: cs}
		if bk == workflow.Done && len(cs) > 50 {
			col.Cards, col.More = cs[:50], len(cs)-50
		}
		r.Columns = append(r.Columns, col)
	}
	for i := len(b.Tail) - 1; i >= 0; i-- {
		r.Recent = append(r.Recent, b.Tail[i])
	}
	r.timeline(b, evs)
	r.graph(b)
	r.figures(b, evs)
	return page.Execute(out, r)
}

// stretch is a task's claim→end on a worker.
type stretch struct {
	id, worker string
	from, to   time.Time
	done, lost bool
}

func (r *report) timeline(b *board.Board, evs []events.Event) {
	open := map[string]*stretch{}
	// last is when each open stretch's task was last heard of: where the
	// bar of a run whose watcher died ends.
	last := map[string]time.Time{}
	var all []*stretch
	for _, e := range evs {
		id := e.TaskID()
		prev := last[id]
		last[id] = e.TS
		switch e.Action {
		case "claim":
			if s := open[id]; s != nil {
				// Claimed again with no event that ended the last claim
				// (a log of an older version): it ended unseen.
				s.to = prev
			}
			s := &stretch{id: id, worker: e.Actor, from: e.TS}
			open[id] = s
			all = append(all, s)
		case "approve", "pr_merged", "release", "reject", "block", "pr_closed", "pr_changes_requested", "lease_expired", "cancel":
			// With landing: pr, approve only opens the pull request
			// (pr_open): the task lands at pr_merged, or goes back.
			if s := open[id]; s != nil {
				s.to, s.done = e.TS, e.Action == "approve" || e.Action == "pr_merged"
				delete(open, id)
			}
		}
	}
	for _, c := range b.Columns[workflow.Doing] {
		// A run whose watcher is gone is not drawn going on to now.
		if s := open[c.ID]; s != nil && c.Holder.Gone() {
			s.to, s.lost = last[c.ID], true
		}
	}
	if len(all) > maxBars {
		all = all[len(all)-maxBars:]
	}
	if len(all) == 0 {
		return
	}
	start, end := all[0].from, b.Now
	for _, s := range all {
		if s.from.Before(start) {
			start = s.from
		}
	}
	span := end.Sub(start).Seconds()
	if span < 1 {
		span = 1
	}
	titles := map[string]string{}
	for _, cs := range b.Columns {
		for _, c := range cs {
			titles[c.ID] = c.Title
		}
	}
	lanes := map[string]*Lane{}
	var order []string
	scale := float64(timelineW-labelW-10) / span
	for _, s := range all {
		l := lanes[s.worker]
		if l == nil {
			l = &Lane{Worker: s.worker}
			lanes[s.worker] = l
			order = append(order, s.worker)
		}
		to, class := s.to, "open"
		switch {
		case to.IsZero():
			to = end
		case s.done:
			class = "done"
		case s.lost:
			class = "lost"
		default:
			class = "back"
		}
		w := to.Sub(s.from).Seconds() * scale
		if w < 2 {
			w = 2
		}
		l.Bars = append(l.Bars, Bar{ID: s.id, Title: titles[s.id], Class: class,
			X: float64(labelW) + s.from.Sub(start).Seconds()*scale, W: w,
			Label: fmt.Sprintf("%s → %s", s.from.UTC().Format("01-02 15:04:05"), to.UTC().Format("01-02 15:04:05"))})
	}
	sort.Strings(order)
	for i, name := range order {
		l := lanes[name]
		l.Y = 20 + i*laneH
		r.Lanes = append(r.Lanes, *l)
	}
	r.TimeAxisY = 22 + len(order)*laneH
	r.TimelineW, r.TimelineH = timelineW, r.TimeAxisY+22
	r.TimeTicks = timeTicks(start, end, labelW, timelineW-labelW-10)
	for i := range r.TimeTicks {
		r.TimeTicks[i].Y = float64(r.TimeAxisY + 14)
	}
	r.TimeFrom, r.TimeTo = start.UTC().Format("2006-01-02 15:04"), end.UTC().Format("2006-01-02 15:04")
}

// graph lays the depends_on DAG out in layers (a task one layer right of
// its deepest dependency). DONE tasks that no open task depends on are
// left out: the graph is about what is still to come.
func (r *report) graph(b *board.Board) {
	cards := map[string]board.Card{}
	for _, cs := range b.Columns {
		for _, c := range cs {
			cards[c.ID] = c
		}
	}
	in := map[string]bool{}
	for id, c := range cards {
		if c.Bucket == workflow.Done || len(c.DependsOn) == 0 {
			continue
		}
		in[id] = true
		for _, d := range c.DependsOn {
			in[d] = true
		}
	}
	ids := make([]string, 0, len(in))
	for id := range in {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return board.IDNum(ids[i]) < board.IDNum(ids[j]) })
	if len(ids) > maxNodes {
		ids = ids[:maxNodes]
	}
	keep := map[string]bool{}
	for _, id := range ids {
		keep[id] = true
	}
	depth := map[string]int{}
	var level func(id string, seen map[string]bool) int
	level = func(id string, seen map[string]bool) int {
		if d, ok := depth[id]; ok {
			return d
		}
		if seen[id] {
			return 0 // a cycle: claim refuses it; draw it flat
		}
		seen[id] = true
		d := 0
		for _, p := range cards[id].DependsOn {
			if keep[p] {
				if l := level(p, seen) + 1; l > d {
					d = l
				}
			}
		}
		depth[id] = d
		return d
	}
	rows := map[int]int{}
	pos := map[string][2]int{}
	maxRow, maxCol := 0, 0
	for _, id := range ids {
		d := level(id, map[string]bool{})
		x, y := 10+d*(nodeW+40), 10+rows[d]*(nodeH+16)
		rows[d]++
		if rows[d] > maxRow {
			maxRow = rows[d]
		}
		if d > maxCol {
			maxCol = d
		}
		pos[id] = [2]int{x, y}
		c, known := cards[id]
		class := "node-missing"
		if known {
			class = "node-" + string(c.Bucket)
			if len(c.Waiting) > 0 {
				class += " waiting"
				r.Waiting++
			}
		}
		r.Nodes = append(r.Nodes, Node{ID: id, Title: c.Title, Class: class, X: x, Y: y})
	}
	for _, id := range ids {
		for _, d := range cards[id].DependsOn {
			if p, ok := pos[d]; ok {
				q := pos[id]
				r.Edges = append(r.Edges, Edge{p[0] + nodeW, p[1] + nodeH/2, q[0], q[1] + nodeH/2})
			}
		}
	}
	if len(ids) > 0 {
		r.GraphW, r.GraphH = 20+(maxCol+1)*(nodeW+40), 20+maxRow*(nodeH+16)
	}
}

// figures: tasks approved per day over the last days, and lead time
// (created → DONE) and cycle time (first claim → DONE) of the DONE tasks.
func (r *report) figures(b *board.Board, evs []events.Event) {
	firstClaim := map[string]time.Time{}
	perDay := map[string]int{}
	var cycle []time.Duration
	for _, e := range evs {
		id := e.TaskID()
		switch e.Action {
		case "claim":
			if _, ok := firstClaim[id]; !ok {
				firstClaim[id] = e.TS
			}
		case "approve", "pr_merged":
			perDay[e.TS.UTC().Format("2006-01-02")]++
			if t, ok := firstClaim[id]; ok {
				cycle = append(cycle, e.TS.Sub(t))
			}
		}
	}
	var lead []time.Duration
	for _, c := range b.Columns[workflow.Done] {
		// Lead time is to landing: a cancelled task never landed.
		if !c.Created.IsZero() && !c.Completed.IsZero() && c.Cancelled == "" {
			lead = append(lead, c.Completed.Sub(c.Created))
		}
	}
	r.Done = len(b.Columns[workflow.Done])
	r.Landed = r.Done - b.Cancelled
	r.LeadMedian, r.LeadP90 = quantile(lead, 50), quantile(lead, 90)
	r.CycleMedian, r.CycleP90 = quantile(cycle, 50), quantile(cycle, 90)
	r.Throughput = throughputChart(perDay, b.Now, throughDay)
}

func quantile(ds []time.Duration, q int) string {
	if len(ds) == 0 {
		return "–"
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	d := ds[(len(ds)-1)*q/100]
	return d.Round(time.Second).String()
}

func ageOf(now, since time.Time) string {
	if since.IsZero() {
		return "-"
	}
	return board.Age(now.Sub(since))
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{"age": ageOf, "event": board.EventText, "last": func(ts []Tick) int { return len(ts) - 1 },
	"pct": percent, "f2": twoPlaces, "secs": seconds, "addpx": func(n int) int { return worthLabelW + n + 6 }}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>burl report · {{.Generated}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1f24;background:#fff}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
.board{display:grid;grid-template-columns:repeat(5,minmax(0,1fr));gap:10px}
.col{background:#f3f4f6;border-radius:6px;padding:6px}
.col h3{margin:2px 4px 6px;font-size:1em}
.card{background:#fff;border:1px solid #d0d7de;border-radius:5px;padding:4px 6px;margin-bottom:6px}
.card .id{font-weight:600}.card .meta{color:#57606a;font-size:.85em}
.mark{color:#cf222e;font-weight:700;margin-left:.3em}
.pr a{color:#0969da}
.figs td,.figs th{padding:2px 12px 2px 0;text-align:left}
svg text{font:11px system-ui,sans-serif}
.open{fill:#0969da}.done{fill:#1a7f37}.back{fill:#bf8700}.lost{fill:#cf222e}
li.lost{color:#cf222e}
.node-READY rect{fill:#ddf4ff}.node-DOING rect{fill:#fff8c5}.node-QA rect{fill:#fbefff}
.node-DONE rect{fill:#dafbe1}.node-BLOCKED rect{fill:#ffebe9}.node-missing rect{fill:#eee}
.node rect{stroke:#57606a}.waiting rect{stroke:#cf222e;stroke-width:2;stroke-dasharray:4 2}
.edge{stroke:#8c959f;stroke-width:1.2;marker-end:url(#arrow)}
.bar{fill:#0969da}
.grid line{stroke:#eaeef2;stroke-width:1}
.axis line,.baseline{stroke:#57606a;stroke-width:1}
.axis text{fill:#57606a}.caption{fill:#1b1f24}
</style>
</head>
<body>
<h1>burl · {{.Board.Now.UTC.Format "2006-01-02 15:04 UTC"}}</h1>
<p>Generated {{.Generated}}. Markers: <b>L</b> locked, <b>S</b> stalled, <b>E</b> lease expired, <b>X</b> its run is lost (its watcher died or its lease expired), <b>C</b> predicted conflict, <b>W</b> waiting on a dependency, <b>B!</b> waiting on a BLOCKED dependency (a human must act), <b>H</b> held from agents by a human, <b>N</b> cancelled (DONE, not landed); the review's: <b>R+</b> approved, <b>R-</b> changes requested, <b>R!</b> failed, <b>R~</b> overridden by hand, <b>R?</b> a new head waits for its review.</p>

<h2 id="board">Board</h2>
<div class="board">
{{- range .Columns}}
<section class="col"><h3>{{.Name}} ({{len .Cards}}{{if .More}}+{{.More}}{{end}})</h3>
{{- range .Cards}}
<div class="card"><span class="id">{{.ID}}</span> <span class="meta">{{.Priority}} · {{age $.Board.Now .Since}}</span>{{with .Markers}}<span class="mark">{{.}}</span>{{end}}
<div>{{.Title}}</div>{{if .StackedOn}}<div class="meta stack">↳ on {{.StackedOn}}</div>{{end}}{{if .Owner}}<div class="meta">@{{.Owner}}</div>{{end}}
{{- if .Usage.Runs}}<div class="meta usage">{{.Usage.Runs}} run(s) · {{.Usage.Usage.Short}}</div>{{end}}
{{- if .Conflicts}}<div class="meta">conflicts with {{range $i, $c := .Conflicts}}{{if $i}}, {{end}}{{$c}}{{end}}</div>{{end}}
{{- if .Waiting}}<div class="meta">waits for {{range $i, $c := .Waiting}}{{if $i}}, {{end}}{{$c}}{{end}}{{if .BlockedDeps}} ({{range $i, $c := .BlockedDeps}}{{if $i}}, {{end}}{{$c}}{{end}} BLOCKED: a human must act){{end}}</div>{{end}}
{{- if .Reason}}<div class="meta reason">blocked: {{.Reason}}</div>{{end}}
{{- if .Held}}<div class="meta held">held: {{.Held}}</div>{{end}}
{{- if .Cancelled}}<div class="meta cancelled">cancelled: {{.Cancelled}}</div>{{end}}
{{- if .Holder.Gone}}<div class="meta lost">lost: {{.Holder.Describe}}</div>{{end}}
{{- with .Next.Line}}<div class="meta next">next: {{.}}</div>{{end}}
{{- if .Review}}<div class="meta review">review: {{.Review}}</div>{{end}}
{{- if .PR}}{{$c := .}}<div class="meta pr">{{with .PRLink}}<a href="{{.}}" rel="noopener noreferrer">{{$c.PR}}</a>{{else}}{{.PR}}{{if .PRURL}} ({{.PRURL}}){{end}}{{end}} {{.PRState}}</div>{{end}}
</div>
{{- end}}
{{- if .More}}<div class="meta">… {{.More}} older</div>{{end}}
</section>
{{- end}}
</div>

<h2 id="running">Running agents</h2>
{{if or .Board.Runs .Board.Lost}}<ul>
{{- range .Board.Lost}}<li class="lost">{{.Task}} · {{.Agent}} #{{.Attempt}} · LOST at {{.Until.UTC.Format "15:04:05"}} (started {{.Since.UTC.Format "15:04:05"}}): {{.Lost}}{{with .Next.Command}} · next: <code>{{.}}</code>{{end}}</li>{{end}}
{{- range .Board.Runs}}<li>{{.Task}} · {{.Agent}} #{{.Attempt}} · since {{.Since.UTC.Format "15:04:05"}} · <code>{{.Log}}</code>{{if .LastLine}} — {{.LastLine}}{{end}}</li>{{end}}</ul>{{else}}<p>No agent is running.</p>{{end}}

<h2 id="figures">Throughput and lead time</h2>
<table class="figs">
<tr><th>DONE tasks</th><td>{{.Done}}{{if .Board.Cancelled}} ({{.Landed}} landed, {{.Board.Cancelled}} cancelled){{end}}</td></tr>
<tr><th>Lead time (created → DONE), median / p90</th><td>{{.LeadMedian}} / {{.LeadP90}}</td></tr>
<tr><th>Cycle time (first claim → DONE), median / p90</th><td>{{.CycleMedian}} / {{.CycleP90}}</td></tr>
</table>
{{with .Throughput}}<svg id="throughput" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="tasks approved per day">
<g class="grid">
{{- range .YTicks}}
<line x1="{{$.Throughput.Left}}" y1="{{printf "%.1f" .Y}}" x2="{{$.Throughput.Right}}" y2="{{printf "%.1f" .Y}}"/>
{{- end}}
</g>
{{- range .Days}}
<rect class="bar" x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" width="{{printf "%.1f" .W}}" height="{{printf "%.1f" .H}}"><title>{{.Day}}: {{.N}} approved</title></rect>
{{- if .N}}<text class="count" x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" dx="{{printf "%.1f" .W}}" dy="-3" text-anchor="end">{{.N}}</text>{{end}}
{{- end}}
<g class="axis y-axis">
<line x1="{{.Left}}" y1="{{.Top}}" x2="{{.Left}}" y2="{{.Base}}"/>
{{- range .YTicks}}
<text class="y-label" x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" dy="4" text-anchor="{{.Anchor}}">{{.Label}}</text>
{{- end}}
</g>
<line class="baseline" x1="{{.Left}}" y1="{{.Base}}" x2="{{.Right}}" y2="{{.Base}}"/>
<g class="axis x-axis">
{{- range .Dates}}
<line x1="{{printf "%.1f" .X}}" y1="{{$.Throughput.Base}}" x2="{{printf "%.1f" .X}}" y2="{{$.Throughput.TickEnd}}"/>
<text class="date" x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" text-anchor="{{.Anchor}}">{{.Label}}</text>
{{- end}}
</g>
<text class="caption" x="{{.Left}}" y="{{$.Throughput.H}}" dy="-6">{{.Caption}}</text>
</svg>{{end}}

<h2 id="usage">Agent usage</h2>
{{if .Board.Usage}}<table class="figs">
<tr><th>agent</th><th>runs</th><th>input tokens</th><th>output tokens</th><th>cost (USD)</th></tr>
{{- range $a, $s := .Board.Usage}}
<tr><td>{{$a}}</td><td>{{$s.Runs}}</td><td>{{$s.InputTokens}}</td><td>{{$s.OutputTokens}}</td><td>{{printf "%.2f" $s.CostUSD}}</td></tr>
{{- end}}
{{- with .Board.Usage.Total}}
<tr><th>total</th><th>{{.Runs}}</th><th>{{.InputTokens}}</th><th>{{.OutputTokens}}</th><th>{{printf "%.2f" .CostUSD}}</th></tr>{{end}}
</table>{{else}}<p>No agent run has reported usage.</p>{{end}}

{{with .Worth}}<h2 id="worth">Which agent is worth its money</h2>
<p>From the event log (git burl stats --by agent): first-pass is landed with no rejection, request_changes, failed check, scope grant or unblock; cost per landed task counts all spend, failed runs and tasks that never landed included.</p>
<table class="figs" id="worth-table">
<tr><th>agent</th><th>landed</th><th>cancelled</th><th>blocked</th><th>first-pass</th><th>rounds</th><th>spend (USD)</th><th>per landed (USD)</th><th>landed nothing (USD)</th><th>claim→landed</th><th>ready→landed</th><th>touches per landed</th></tr>
{{- range $i, $r := .Rows}}
<tr>{{if $i}}<td>{{$r.Key}}</td>{{else}}<th>all</th>{{end}}<td>{{$r.Landed}}</td><td>{{$r.Cancelled}}</td><td>{{$r.Blocked}}</td><td>{{with $r.FirstPassYield}}{{pct .}}{{else}}—{{end}}</td><td>{{f2 $r.RoundsPerLanded}}</td><td>{{printf "%.2f" $r.SpendUSD}}</td><td>{{f2 $r.CostPerLandedUSD}}</td><td>{{printf "%.2f" $r.SpendLandedNothingUSD}}</td><td>{{with $r.MedianClaimToLandedS}}{{secs .}}{{else}}—{{end}}</td><td>{{with $r.MedianReadyToLandedS}}{{secs .}}{{else}}—{{end}}</td><td>{{f2 $r.TouchesPerLanded}}</td></tr>
{{- end}}
</table>
{{if .Bars}}<svg id="worth-chart" width="{{.W}}" height="{{.H}}" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="cost per landed task and spend that landed nothing, per agent">
{{- range .Bars}}
<g class="worth-bar"><text x="0" y="{{.Y}}" dy="11">{{.Key}} · first-pass {{.Yield}}</text>
<rect class="bar" x="140" y="{{.Y}}" width="{{.Cost}}" height="11"><title>{{.CostLabel}}</title></rect>
<rect class="back" x="140" y="{{.Y}}" transform="translate(0,12)" width="{{.Wasted}}" height="6"><title>spent on work that landed nothing</title></rect>
<text x="{{addpx .Cost}}" y="{{.Y}}" dy="10">{{.CostLabel}}</text></g>
{{- end}}
<text class="caption" x="140" y="{{.H}}" dy="-4">blue: cost per landed task (all spend over landed tasks); amber: spend that landed nothing; scale 0 – {{.Scale}}</text>
</svg>{{end}}
{{end}}
<h2 id="timeline">Timeline: claim → DONE per worker</h2>
{{if .Lanes}}<p>{{.TimeFrom}} → {{.TimeTo}} UTC. Blue: in progress, green: DONE, amber: given back (released, rejected, blocked, taken over), red: lost (its watcher died; the bar ends when it was last heard of).</p>
<svg id="timeline-chart" width="{{.TimelineW}}" height="{{.TimelineH}}" viewBox="0 0 {{.TimelineW}} {{.TimelineH}}" role="img" aria-label="timeline">
<g class="grid">
{{- range .TimeTicks}}
<line x1="{{printf "%.1f" .X}}" y1="14" x2="{{printf "%.1f" .X}}" y2="{{$.TimeAxisY}}"/>
{{- end}}
</g>
{{- range .Lanes}}
<text x="4" y="{{.Y}}" dy="14">{{.Worker}}</text>
{{- $y := .Y}}
{{- range .Bars}}
<rect class="{{.Class}}" x="{{printf "%.1f" .X}}" y="{{$y}}" width="{{printf "%.1f" .W}}" height="18" rx="2"><title>{{.ID}} {{.Title}} ({{.Label}})</title></rect>
{{- end}}
{{- end}}
<g class="axis time-axis">
<line x1="{{(index .TimeTicks 0).X}}" y1="{{.TimeAxisY}}" x2="{{(index .TimeTicks (last .TimeTicks)).X}}" y2="{{.TimeAxisY}}"/>
{{- range .TimeTicks}}
<text class="tick" x="{{printf "%.1f" .X}}" y="{{printf "%.1f" .Y}}" text-anchor="{{.Anchor}}">{{.Label}}</text>
{{- end}}
</g>
</svg>{{else}}<p>No task has been claimed yet.</p>{{end}}

<h2 id="deps">Dependency graph</h2>
{{if .Nodes}}<p>Arrows point from a dependency to the task that waits for it. {{.Waiting}} READY task(s) wait on unfinished work (red dashed border).</p>
<svg width="{{.GraphW}}" height="{{.GraphH}}" viewBox="0 0 {{.GraphW}} {{.GraphH}}" role="img" aria-label="dependency graph">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="#8c959f"/></marker></defs>
{{- range .Edges}}
<line class="edge" x1="{{.X1}}" y1="{{.Y1}}" x2="{{.X2}}" y2="{{.Y2}}"/>
{{- end}}
{{- range .Nodes}}
<g class="node {{.Class}}"><rect x="{{.X}}" y="{{.Y}}" width="150" height="34" rx="4"/><text x="{{.X}}" y="{{.Y}}" dx="6" dy="14">{{.ID}}</text><text x="{{.X}}" y="{{.Y}}" dx="6" dy="28">{{printf "%.22s" .Title}}</text><title>{{.ID}} {{.Title}}</title></g>
{{- end}}
</svg>{{else}}<p>No open task has dependencies.</p>{{end}}

<h2 id="events">Recent events</h2>
<ol>{{range .Recent}}<li>{{.TS.UTC.Format "2006-01-02 15:04:05"}} {{event .}}</li>{{end}}</ol>
</body>
</html>
`))
