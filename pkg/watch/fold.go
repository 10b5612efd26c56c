package watch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/attempts"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/workflow"
)

// envRunEnd carries a run's run_end event from watch to the submit it
// runs at the end of that run: the submit logs it behind its own event,
// in its own commit. With workflow_auto_push every commit is a push to
// the one workflow branch all clones race for; a task's run_end riding
// with its submit is one push fewer a task, and one fewer to lose
// (DESIGN §25: several clones land faster than one). A submit that is
// refused logs nothing of it, and watch records run_end as before.
const envRunEnd = "BURL_RUN_END"

// foldedEnd is envRunEnd's value: the run_end details as watch computed
// them, and the usage to add to the task's sums (runEnd does the same).
type foldedEnd struct {
	Agent   string          `json:"agent"`
	Details json.RawMessage `json:"details"`
	Usage   *usage.Usage    `json:"usage,omitempty"`
}

// endEnv is the environment that hands a submit the run_end of a run
// that ends with it.
func endEnv(agent string, d map[string]any, u *usage.Usage) []string {
	rest := map[string]any{}
	for k, v := range d {
		if k != "usage" {
			rest[k] = v
		}
	}
	details, err := json.Marshal(rest)
	if err != nil {
		return nil
	}
	v, err := json.Marshal(foldedEnd{Agent: agent, Details: details, Usage: u})
	if err != nil {
		return nil
	}
	return []string{envRunEnd + "=" + string(v)}
}

// FoldRunEnd is submit's side of envRunEnd: run by a watcher's submit
// (its lease checked), it adds the run's usage to the task and logs
// run_end behind submit, in submit's commit. Without envRunEnd it does
// nothing.
func FoldRunEnd(tx *workflow.Tx) error {
	v := os.Getenv(envRunEnd)
	if v == "" {
		return nil
	}
	var f foldedEnd
	if err := json.Unmarshal([]byte(v), &f); err != nil {
		return fmt.Errorf("$%s: %w", envRunEnd, err)
	}
	d := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(f.Details))
	// Numbers stay as watch wrote them (exit, duration_ms, attempt).
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return fmt.Errorf("$%s: %w", envRunEnd, err)
	}
	if f.Usage != nil {
		tx.Task.AddUsage(f.Agent, *f.Usage)
		d["usage"] = *f.Usage
	}
	tx.After = append(tx.After, workflow.Step{Action: "run_end", Details: d})
	return nil
}

// envRunStart asks the claim watch runs for a free slot to start the
// claimed task's first run in the claim's own commit, run_start logged
// behind claim (one push a task fewer, as envRunEnd), when nothing stands
// between the claim and that run: no backoff to wait out, no scope
// request, no budget spent. Otherwise the claim logs claim alone and watch
// starts the run as before.
const envRunStart = "BURL_RUN_START"

// foldedStart is envRunStart's value: who runs, and its budget.
type foldedStart struct {
	Agent      string  `json:"agent"`
	Preset     string  `json:"preset,omitempty"`
	MaxCostUSD float64 `json:"max_cost_usd,omitempty"`
}

// startEnv is the environment that asks a claim to start a's run.
func startEnv(a agents.Agent) []string {
	v, err := json.Marshal(foldedStart{Agent: a.Name, Preset: a.Preset, MaxCostUSD: a.MaxCostUSD})
	if err != nil {
		return nil
	}
	return []string{envRunStart + "=" + string(v)}
}

// FoldRunStart is claim's side of envRunStart: run by a watcher's claim
// that has just set the lease (expiring at exp), it logs run_start behind
// claim with the details watch's own run_start would have, when the run
// can start at once. Without envRunStart it does nothing.
func FoldRunStart(tx *workflow.Tx, exp time.Time) {
	v, holder := os.Getenv(envRunStart), os.Getenv("BURL_WATCHER")
	var f foldedStart
	if v == "" || holder == "" || json.Unmarshal([]byte(v), &f) != nil || f.Agent == "" {
		return
	}
	w, t, id := tx.W, tx.Task, tx.Entry.ID
	if t.Str(task.KeyScopeRequest) != "" || budgetSpent(t, f.MaxCostUSD, f.Agent, id) != "" {
		return
	}
	h := attempts.Of(w, id, failedResults)
	if h.Wait(w.Config.RetryBackoff, tx.Now) > 0 {
		return
	}
	attempt := 1 + h.Runs
	d := map[string]any{"agent": f.Agent, "attempt": attempt, "log": w.Rel(runBase(w, id, tx.Now, f.Agent, attempt) + ".log"),
		"holder": holder, "lease_expires": exp.Format(time.RFC3339)}
	if f.Preset != "" {
		d["preset"] = f.Preset
	}
	tx.After = append(tx.After, workflow.Step{Action: "run_start", Details: d})
}

// runBase is a run's log and prompt path without the extension.
func runBase(w *workflow.Workflow, id string, at time.Time, agent string, attempt int) string {
	stamp := at.UTC().Format("20060102T150405.000Z")
	return filepath.Join(w.LogsDir(), id, fmt.Sprintf("%s-watch-%s-%d", stamp, agent, attempt))
}

// startedRun is the run the claim of id started for actor (FoldRunStart):
// its run_start details, nil when the claim started none.
func startedRun(w *workflow.Workflow, id, actor string) map[string]any {
	var evs []events.Event
	attempts.NewestFirst(w, id, func(e events.Event) bool {
		evs = append(evs, e)
		return len(evs) < 2
	})
	if len(evs) < 2 {
		return nil
	}
	rs, c := evs[0], evs[1]
	if rs.Action != "run_start" || c.Action != "claim" || rs.Actor != actor || c.Actor != actor || !rs.TS.Equal(c.TS) {
		return nil
	}
	if h, _ := rs.Details["holder"].(string); h != lease.Holder(actor) {
		return nil
	}
	return rs.Details
}

// detailInt is an event detail that is a whole number.
func detailInt(d map[string]any, k string) (int, bool) {
	switch n := d[k].(type) {
	case float64:
		return int(n), n == float64(int(n))
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}
