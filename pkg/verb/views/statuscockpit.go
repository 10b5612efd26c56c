package views

// What status adds for the lead's cockpit (DESIGN §27): the watches
// draining, the day's spend against max_cost_usd_per_day, each QA task's
// place in the merge queue.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"time"

	"github.com/burl-dev/burl/pkg/budget"
	"github.com/burl-dev/burl/pkg/drain"
	"github.com/burl-dev/burl/pkg/land"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/workflow"
)

// drainState is a pending git burl drain, as status --json says it.
type drainState struct {
	By       string    `json:"by"`
	At       time.Time `json:"at"`
	Watchers int       `json:"watchers"`
}

// cockpit is what status reads for the lead besides the tasks.
type cockpit struct {
	draining *drainState
	// budget is there when max_cost_usd_per_day caps the day.
	budget *budget.State
	// queue is each QA task's place, as approve --all --dry-run plans it.
	queue map[string]land.Place
}

func readCockpit(w *workflow.Workflow) cockpit {
	var c cockpit
	if m, ok := drain.Requested(w.Repo.BurlDir()); ok {
		ws, _ := drain.Live(w.Repo.BurlDir())
		c.draining = &drainState{By: m.By, At: m.At, Watchers: len(ws)}
	}
	c.queue = land.QueuePlaces(w)
	// An unreadable log is doctor's to report: status still shows the rest.
	if st, err := budgetToday(w); err == nil && st.LimitUSD > 0 {
		c.budget = &st
	}
	return c
}

// human writes the cockpit's lines under the counts.
func (c cockpit) human(w *bufio.Writer) {
	if d := c.draining; d != nil {
		fmt.Fprintf(w, "draining: %d watch(es) claim nothing new, finish their runs and exit (git burl drain by %s at %s)\n", d.Watchers, d.By, d.At.Format(time.RFC3339))
	}
	if b := c.budget; b != nil && b.Reached {
		fmt.Fprintf(w, "budget: today's runs cost %s, max_cost_usd_per_day is %s: no watch claims until tomorrow (UTC) or a higher cap (git burl inbox)\n", usage.Dollars(b.SpentUSD), usage.Dollars(b.LimitUSD))
	}
}

// place is a QA task's place in the queue for its line of status.
func (c cockpit) place(id string) string {
	p, ok := c.queue[id]
	if !ok {
		return ""
	}
	return "  [" + p.Label() + "]"
}

// placeJSON appends a QA task's "queue" object.
func (c cockpit) placeJSON(b []byte, id string) []byte {
	p, ok := c.queue[id]
	if !ok {
		return b
	}
	j, _ := json.Marshal(p)
	return append(append(b, `,"queue":`...), j...)
}

// streamJSON appends the cockpit's keys to status's document.
func (c cockpit) streamJSON(w *bufio.Writer) {
	if c.draining != nil {
		j, _ := json.Marshal(c.draining)
		w.WriteString(`,"draining":`)
		w.Write(j)
	}
	if c.budget != nil {
		j, _ := json.Marshal(c.budget)
		w.WriteString(`,"budget":`)
		w.Write(j)
	}
}
