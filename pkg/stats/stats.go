// Package stats answers which agent, which model is worth its money
// (DESIGN §27) from the event log alone, which every clone holds: what
// landed, was cancelled or blocked; the first-pass yield; rounds, cost and
// human touches per landed task, counting every dollar spent, failed and
// unchanged runs and tasks that never landed included; lead times.
package stats

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/usage"
)

// By names how rows are grouped; pinned (stats --by).
const (
	ByAgent = "agent"
	ByModel = "model"
	ByTag   = "tag"
)

// None is the group of what has no agent, model or tag (a task worked
// by hand, a run that reported no model, a task without tags).
const None = "(none)"

// Row is one line of the table; a ratio over no landed task is null.
type Row struct {
	Key       string `json:"key,omitempty"`
	Landed    int    `json:"landed"`
	Cancelled int    `json:"cancelled"`
	Blocked   int    `json:"blocked"`
	// FirstPass are the landed tasks with no rejection, request_changes,
	// failed check, scope grant or unblock on the way.
	FirstPass      int      `json:"first_pass"`
	FirstPassYield *float64 `json:"first_pass_yield"`
	// RoundsPerLanded: submits (QA rounds) per landed task.
	RoundsPerLanded *float64 `json:"rounds_per_landed"`
	Runs            int      `json:"runs"`
	FailedRuns      int      `json:"failed_runs"`
	SpendUSD        float64  `json:"spend_usd"`
	// CostPerLandedUSD is all spend over the landed tasks.
	CostPerLandedUSD *float64 `json:"cost_per_landed_usd"`
	// SpendLandedNothingUSD: runs that ended without a submit, and every
	// run of a task that has not landed.
	SpendLandedNothingUSD float64  `json:"spend_landed_nothing_usd"`
	MedianClaimToLandedS  *float64 `json:"median_claim_to_landed_s"`
	MedianReadyToLandedS  *float64 `json:"median_ready_to_landed_s"`
	HumanTouches          int      `json:"human_touches"`
	TouchesPerLanded      *float64 `json:"human_touches_per_landed"`
	claimToLanded         []float64
	readyToLanded         []float64
	rounds                int
}

// Report is the table: every task and run since Since, and a row per
// group when By is set.
type Report struct {
	Since  *time.Time `json:"since"`
	By     string     `json:"by,omitempty"`
	Total  Row        `json:"total"`
	Groups []Row      `json:"groups"`
}

// Options select the window and the grouping; Tags are each task's tags
// (needed only for ByTag).
type Options struct {
	Since time.Time
	By    string
	Tags  map[string][]string
}

// run is one agent run as its run_end records it.
type run struct {
	task, agent, model string
	cost               float64
	submitted, inside  bool
}

// taskAcc is what the log says of one task.
type taskAcc struct {
	ready, claim, landed time.Time
	landedIn             bool // landed within the window
	cancelled, blocked   bool // within the window
	rounds               int
	bounced              bool
	agent, model         string // of its last run
	touches              map[string]int
	touchesIn            map[string]int
}

// touch are the transitions a person makes on a task: counted as human
// touches when their actor is no agent's and not watch's.
var touch = map[string]bool{"claim": true, "submit": true, "approve": true, "reject": true, "block": true, "unblock": true,
	"hold": true, "unhold": true, "edit": true, "scope": true, "cancel": true, "release": true, "lock_clear": true, "accept": true}

// bounce are what make a landed task not first-pass.
func bounce(e *event) bool {
	switch e.Action {
	case "reject", "checks_failed", "pr_changes_requested", "scope", "unblock":
		return true
	case "review":
		return e.Details.Verdict == "request_changes"
	}
	return false
}

// Compute reads the event log in dir and builds the report.
func Compute(dir string, o Options) (Report, error) {
	tasks := map[string]*taskAcc{}
	var runs []run
	machines := map[string]bool{}
	in := func(t time.Time) bool { return o.Since.IsZero() || !t.Before(o.Since) }
	err := read(dir, func(e *event) {
		t := tasks[e.Task]
		if t == nil {
			t = &taskAcc{}
			tasks[e.Task] = t
		}
		d := &e.Details
		switch e.Action {
		case "add":
			// A proposal is ready once accepted (its transition to READY).
			if t.ready.IsZero() && d.Bucket == "" {
				t.ready = e.TS
			}
		case "claim":
			if t.claim.IsZero() {
				t.claim = e.TS
			}
		case "submit":
			t.rounds++
		case "run_start":
			machines[e.Actor] = true
		case "run_end":
			machines[e.Actor] = true
			r := run{task: e.Task, agent: d.Agent, model: None, submitted: d.Result == "submitted", inside: in(e.TS)}
			if d.Usage != nil {
				r.cost = d.Usage.CostUSD
				if d.Usage.Model != "" {
					r.model = d.Usage.Model
				}
			}
			t.agent, t.model = r.agent, r.model
			runs = append(runs, r)
		}
		if d.To == "READY" && t.ready.IsZero() {
			t.ready = e.TS
		}
		if bounce(e) {
			t.bounced = true
		}
		if touch[e.Action] {
			if t.touches == nil {
				t.touches, t.touchesIn = map[string]int{}, map[string]int{}
			}
			t.touches[e.Actor]++
			if in(e.TS) {
				t.touchesIn[e.Actor]++
			}
		}
		switch {
		case d.To == "DONE" && d.Resolution == "cancelled":
			t.cancelled = t.cancelled || in(e.TS)
		case d.To == "DONE" || e.Action == "pr_merged":
			if t.landed.IsZero() {
				t.landed, t.landedIn = e.TS, in(e.TS)
			}
		case d.To == "BLOCKED":
			t.blocked = t.blocked || in(e.TS)
		}
	})
	if err != nil {
		return Report{}, err
	}
	rep := Report{By: o.By, Groups: []Row{}}
	if !o.Since.IsZero() {
		s := o.Since.UTC()
		rep.Since = &s
	}
	groups := map[string]*Row{}
	rowsOf := func(keys []string) []*Row {
		out := []*Row{&rep.Total}
		if o.By == "" {
			return out
		}
		for _, k := range keys {
			r := groups[k]
			if r == nil {
				r = &Row{Key: k}
				groups[k] = r
			}
			out = append(out, r)
		}
		return out
	}
	keysOf := func(id string, t *taskAcc) []string {
		switch o.By {
		case ByAgent:
			return []string{orNone(t.agent)}
		case ByModel:
			return []string{orNone(t.model)}
		case ByTag:
			if tags := o.Tags[id]; len(tags) > 0 {
				return tags
			}
			return []string{None}
		}
		return nil
	}
	for id, t := range tasks {
		touches := 0
		for actor, n := range t.touchesIn {
			if !machines[actor] && !strings.HasPrefix(actor, "watch@") {
				touches += n
			}
		}
		for _, r := range rowsOf(keysOf(id, t)) {
			r.HumanTouches += touches
			if t.cancelled {
				r.Cancelled++
			}
			if t.blocked {
				r.Blocked++
			}
			if !t.landedIn {
				continue
			}
			r.Landed++
			r.rounds += t.rounds
			if !t.bounced {
				r.FirstPass++
			}
			if !t.claim.IsZero() {
				r.claimToLanded = append(r.claimToLanded, t.landed.Sub(t.claim).Seconds())
			}
			if !t.ready.IsZero() {
				r.readyToLanded = append(r.readyToLanded, t.landed.Sub(t.ready).Seconds())
			}
		}
	}
	for _, rn := range runs {
		if !rn.inside {
			continue
		}
		var keys []string
		switch o.By {
		case ByAgent:
			keys = []string{orNone(rn.agent)}
		case ByModel:
			keys = []string{rn.model}
		case ByTag:
			keys = keysOf(rn.task, tasks[rn.task])
		}
		wasted := !rn.submitted || tasks[rn.task].landed.IsZero()
		for _, r := range rowsOf(keys) {
			r.Runs++
			r.SpendUSD += rn.cost
			if !rn.submitted {
				r.FailedRuns++
			}
			if wasted {
				r.SpendLandedNothingUSD += rn.cost
			}
		}
	}
	finish(&rep.Total)
	for _, r := range groups {
		finish(r)
		rep.Groups = append(rep.Groups, *r)
	}
	sort.Slice(rep.Groups, func(i, j int) bool { return rep.Groups[i].Key < rep.Groups[j].Key })
	return rep, nil
}

func orNone(s string) string {
	if s == "" {
		return None
	}
	return s
}

// finish works out a row's ratios and rounds its figures.
func finish(r *Row) {
	r.SpendUSD = usage.Round(r.SpendUSD)
	r.SpendLandedNothingUSD = usage.Round(r.SpendLandedNothingUSD)
	if r.Landed == 0 {
		return
	}
	n := float64(r.Landed)
	r.FirstPassYield = ratio(float64(r.FirstPass) / n)
	r.RoundsPerLanded = ratio(float64(r.rounds) / n)
	r.CostPerLandedUSD = ratio(r.SpendUSD / n)
	r.TouchesPerLanded = ratio(float64(r.HumanTouches) / n)
	r.MedianClaimToLandedS = median(r.claimToLanded)
	r.MedianReadyToLandedS = median(r.readyToLanded)
}

// ratio is f to four decimals, as every figure of the JSON is.
func ratio(f float64) *float64 {
	v := math.Round(f*1e4) / 1e4
	return &v
}

func median(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	slices.Sort(xs)
	m := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		m = (xs[len(xs)/2-1] + m) / 2
	}
	return ratio(m)
}
