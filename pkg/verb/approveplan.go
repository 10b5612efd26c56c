package verb

import (
	"fmt"
	"io"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/land"
)

// planOut is approve --all --dry-run's answer: land.Plan, whose JSON is
// the pinned document.
type planOut struct{ *land.Plan }

func (o planOut) Human(w io.Writer) {
	parent := map[string]string{}
	for _, p := range o.Places {
		parent[p.ID] = p.StackedOn
	}
	queued := 0
	for i, b := range o.Batches {
		ids := make([]string, len(b))
		for j, id := range b {
			ids[j] = id
			if p := parent[id]; p != "" {
				ids[j] += " (after " + p + ", which it is stacked on)"
			}
		}
		fmt.Fprintf(w, "batch %d: %s\n", i+1, strings.Join(ids, ", "))
		queued += len(b)
	}
	for _, p := range o.Places {
		if p.Position == 0 {
			fmt.Fprintf(w, "left in QA: %s (%s): it %s\n", p.ID, p.Waits, cli.Escape(p.Reason))
		}
	}
	fmt.Fprintf(w, "approve --all --dry-run: %d task(s) would land in %d batch(es) of up to %d, one build each if it passes; %d left in QA; nothing was changed\n",
		queued, len(o.Batches), o.BatchSize, len(o.Places)-queued)
}

// dryRun is approve --all --dry-run: the queue's plan (DESIGN §27), read
// only.
func (c *approveCmd) dryRun(ctx *cli.Context, args []string) (cli.Output, error) {
	if !c.All || c.AcceptLanded || len(args) > 0 {
		return nil, usageErr("approve", "--dry-run goes with --all alone: git burl approve --all --dry-run")
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	p, err := land.PlanQueue(w)
	if err != nil {
		return nil, err
	}
	return planOut{p}, nil
}
