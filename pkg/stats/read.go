package stats

import (
	"bytes"
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
		Bucket     string   `json:"bucket"` // add's: PROPOSED for a proposal
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

// read decodes the event log in dir into calls of fn, in time order: a
// file at a time (shards are days, in order), so that what is held is one
// day's events, never the history's.
func read(dir string, fn func(*event)) error {
	files, err := events.Files(dir, time.Time{})
	if err != nil {
		return err
	}
	var evs []event
	n := names{}
	byTime := func(a, b event) int { return a.TS.Compare(b.TS) }
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		evs = evs[:0]
		for len(data) > 0 {
			line := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				line, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			var e event
			if decode(line, &e, n) && e.Task != "" {
				evs = append(evs, e)
			}
		}
		// A union merge interleaves machines' lines: one history is the
		// day's lines by time, stable.
		if !slices.IsSortedFunc(evs, byTime) {
			slices.SortStableFunc(evs, byTime)
		}
		for i := range evs {
			fn(&evs[i])
		}
	}
	return nil
}
