package views

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/inbox"
	"github.com/burl-dev/burl/pkg/next"
	"github.com/burl-dev/burl/pkg/verb"
)

// Inbox is `git burl inbox`: what cmd/git-burl-inbox runs.
func Inbox() cli.Command { return &inboxCmd{} }

type inboxCmd struct {
	cli.JSONFlag
}

// Brief: inbox reads what status --open reads.
func (*inboxCmd) Brief() {}

type inboxOut struct {
	Items []inbox.Item `json:"items"`
}

func (o inboxOut) Human(out io.Writer) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	if len(o.Items) == 0 {
		fmt.Fprintln(w, "nothing waits for you")
		return
	}
	// Each line is the command, then what it answers as a shell comment:
	// a line copied whole runs as printed.
	width := 0
	for _, it := range o.Items {
		width = max(width, len(it.Command))
	}
	for _, it := range o.Items {
		what := string(it.Kind)
		if it.Task != "" {
			what = it.Task + " " + what
		}
		fmt.Fprintf(w, "%-*s  # %s: %s\n", width, it.Command, what, it.Summary)
	}
}

func (c *inboxCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, cli.UsageError("inbox", "takes no arguments")
	}
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	// Open tasks only: nothing in DONE waits for anyone, and DONE is the
	// history's size.
	entries, err := w.Summaries(false, false)
	if err != nil {
		return nil, err
	}
	locks, err := w.Locks.List()
	if err != nil {
		return nil, err
	}
	untrusted, buildUntrusted := verb.UntrustedConfig(w)
	set, err := next.Gather(w, next.Inputs{Tasks: entries, Locks: locks, BuildUntrusted: buildUntrusted, Now: time.Now()})
	if err != nil {
		return nil, err
	}
	in := inbox.Inputs{Tasks: entries, Next: set, Locks: locks, Untrusted: untrusted, PRMerge: w.Config.PRMerge}
	if in.Budget, err = budgetToday(w); err != nil {
		return nil, err
	}
	in.RaiseBudget = raiseBudgetCommand(ctx, w, in.Budget)
	return inboxOut{Items: inbox.Items(in)}, nil
}
