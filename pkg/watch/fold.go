package watch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

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
