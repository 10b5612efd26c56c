package verb

import (
	"fmt"
	"io"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/drain"
	"github.com/burl-dev/burl/pkg/errs"
)

// Drain is `git burl drain`: what cmd/git-burl-drain runs.
func Drain() cli.Command { return &drainCmd{} }

type drainCmd struct {
	cli.JSONFlag
	Wait bool `long:"wait" description:"Return once every watch has exited"`
}

// drainWatcher is one watch told, as --json says it.
type drainWatcher struct {
	PID     int       `json:"pid"`
	Dir     string    `json:"dir"`
	Started time.Time `json:"started"`
}

type drainOut struct {
	Watchers []drainWatcher `json:"watchers"`
	// Exited: --wait saw every watch told exit.
	Exited bool `json:"exited"`
}

func (o drainOut) Human(w io.Writer) {
	if len(o.Watchers) == 0 {
		fmt.Fprintln(w, "no watch runs in this repository: nothing to drain")
		return
	}
	for _, x := range o.Watchers {
		fmt.Fprintf(w, "draining watch %d in %s (since %s)\n", x.PID, x.Dir, x.Started.Format(time.RFC3339))
	}
	if o.Exited {
		fmt.Fprintf(w, "%d watch(es) finished their runs and exited\n", len(o.Watchers))
		return
	}
	fmt.Fprintf(w, "%d watch(es) claim nothing new, finish their runs and exit (git burl drain --wait waits for that)\n", len(o.Watchers))
}

// Run asks every watch of the repository to drain (DESIGN §27) and logs
// a drain event; with no watch running it changes nothing.
func (c *drainCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) != 0 {
		return nil, usageErr("drain", "takes no arguments")
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	if w.Repo.InWatchRun() {
		return nil, errs.New(errs.User, "inside a watch run the watches are not drained: only a human drains them").
			WithTitle("Cannot drain").WithFix("exit the run instead")
	}
	dir := w.Repo.BurlDir()
	ws, err := drain.Request(dir, w.Actor, time.Now())
	if err != nil {
		return nil, errs.Wrap(err, errs.User, "Cannot ask the watches to drain").WithFix("check that %s is writable, then run git burl drain again", dir)
	}
	out := drainOut{Watchers: []drainWatcher{}}
	for _, x := range ws {
		out.Watchers = append(out.Watchers, drainWatcher{PID: x.PID, Dir: x.Dir, Started: x.Started})
	}
	if len(ws) == 0 {
		return out, nil
	}
	err = w.Mutate("drain", func(int) (string, []string, error) {
		sha, err := w.Event("drain", "", map[string]any{"watchers": len(ws)}, "drain")
		return sha, nil, err
	})
	if err != nil {
		// The watches were told already: the missing line of history is
		// worth a warning, not a failure that would read as "not drained".
		fmt.Fprintf(ctx.Stderr, "burl: warning: the watches drain, but the drain event was not logged: %v\n", err)
	}
	for c.Wait {
		if left, _ := drain.Live(dir); !anyOf(left, ws) {
			out.Exited = true
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	return out, nil
}

// anyOf reports whether any watch told is still among those live.
func anyOf(live, told []drain.Watcher) bool {
	for _, l := range live {
		for _, t := range told {
			if l.PID == t.PID && l.Start == t.Start {
				return true
			}
		}
	}
	return false
}
