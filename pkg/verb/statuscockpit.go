package verb

// What status adds for the lead's cockpit (DESIGN §27): the watches
// draining.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"time"

	"github.com/burl-dev/burl/pkg/drain"
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
}

func readCockpit(w *workflow.Workflow) cockpit {
	var c cockpit
	if m, ok := drain.Requested(w.Repo.BurlDir()); ok {
		ws, _ := drain.Live(w.Repo.BurlDir())
		c.draining = &drainState{By: m.By, At: m.At, Watchers: len(ws)}
	}
	return c
}

// human writes the cockpit's lines under the counts.
func (c cockpit) human(w *bufio.Writer) {
	if d := c.draining; d != nil {
		fmt.Fprintf(w, "draining: %d watch(es) claim nothing new, finish their runs and exit (git burl drain by %s at %s)\n", d.Watchers, d.By, d.At.Format(time.RFC3339))
	}
}

// streamJSON appends the cockpit's keys to status's document.
func (c cockpit) streamJSON(w *bufio.Writer) {
	if c.draining != nil {
		j, _ := json.Marshal(c.draining)
		w.WriteString(`,"draining":`)
		w.Write(j)
	}
}
