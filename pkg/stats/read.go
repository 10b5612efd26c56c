package stats

import (
	"bufio"
	"os"
	"slices"
	"time"

	"github.com/burl-dev/burl/pkg/events"
)

// event is what stats reads of one logged event: the few fields it
// counts, decoded into a struct, never a map (the log is history-sized).
type event struct {
	TS      time.Time `json:"ts"`
	Task    string    `json:"task"`
	Action  string    `json:"action"`
	Actor   string    `json:"actor"`
	Details struct {
		To         string   `json:"to"`
		Resolution string   `json:"resolution"`
		Agent      string   `json:"agent"`
		Verdict    string   `json:"verdict"`
		Result     string   `json:"result"`
		Usage      *usageOf `json:"usage"`
	} `json:"details"`
}

type usageOf struct {
	CostUSD float64 `json:"cost_usd"`
	Model   string  `json:"model"`
}

// read decodes the event log in dir into calls of fn, in time order.
func read(dir string, fn func(*event)) error {
	files, err := events.Files(dir, time.Time{})
	if err != nil {
		return err
	}
	var evs []event
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
		for sc.Scan() {
			line := sc.Bytes()
			var e event
			if !decode(line, &e) || e.Task == "" {
				continue
			}
			evs = append(evs, e)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	// Union merges interleave machines' lines; shards are in day order,
	// so a stable sort by time is one history.
	slices.SortStableFunc(evs, func(a, b event) int { return a.TS.Compare(b.TS) })
	for i := range evs {
		fn(&evs[i])
	}
	return nil
}
