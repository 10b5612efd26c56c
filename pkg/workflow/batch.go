package workflow

import (
	"os"

	"github.com/burl-dev/burl/pkg/events"
)

// EventBatch records several events of one change (add --from: many tasks)
// and commits them with the files they touched, in one commit. On a failed
// commit the log files are cut back to what they held: no event outlives
// the change it describes. The caller holds the workflow lock.
func (w *Workflow) EventBatch(evs []events.Event, summary string, paths ...string) (string, error) {
	// Each log file's size before the batch (-1: it did not exist).
	sizes := map[string]int64{}
	undo := func() {
		for p, n := range sizes {
			if n < 0 {
				_ = os.Remove(p)
			} else {
				_ = os.Truncate(p, n)
			}
		}
	}
	var logs []string
	for _, e := range evs {
		e.Actor = w.Actor
		p := events.Path(w.EventsDir(), e.TS.UTC())
		if _, seen := sizes[p]; !seen {
			sizes[p] = -1
			if st, err := os.Stat(p); err == nil {
				sizes[p] = st.Size()
			}
			logs = append(logs, p)
		}
		if _, err := w.log(e); err != nil {
			undo()
			return "", err
		}
	}
	sha, err := w.Commit(summary, append(paths, logs...)...)
	if err != nil {
		undo()
		return "", err
	}
	return sha, nil
}
