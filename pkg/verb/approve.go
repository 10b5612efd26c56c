package verb

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/land"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Approve is `git burl approve`: what cmd/git-burl-approve runs. Only the
// verbs a binary names are linked into it. What approving does is
// pkg/land's; this is its options and its output.
func Approve() cli.Command { return &approveCmd{} }

type approveCmd struct {
	cli.JSONFlag
	All bool `long:"all" description:"Approve every QA task in queue order, building batches of queue_batch tasks at once"`
	// AcceptLanded is the human's answer to work that reached main
	// without burl's approve (DESIGN §15).
	AcceptLanded bool `long:"accept-landed" description:"Accept a QA task whose work reached main outside burl (a hand merge): the gates run on its commits and main's tree, then DONE"`
	DryRun       bool `long:"dry-run" description:"With --all: show the queue's order and batches, and what each task left out waits for; change nothing"`
}

type approveOut struct {
	Task           map[string]any `json:"task"`
	Merged         string         `json:"merged_sha"`
	Main           string         `json:"main_branch"`
	Drift          int            `json:"drift"`
	Pushed         bool           `json:"pushed"`
	Recovered      bool           `json:"recovered"`
	AlreadyDone    bool           `json:"already_done"`
	AcceptedLanded bool           `json:"accepted_landed"`
	PR             *land.PR       `json:"pr,omitempty"`
	// ReviewOverridden: a human approved past the review gate, and why it
	// held (DESIGN §21).
	ReviewOverridden string `json:"review_overridden,omitempty"`
	prAuto           bool
	prAsked          bool
	checks           string
	entry            workflow.Entry
}

func (o approveOut) Human(w io.Writer) {
	if o.PR != nil {
		said := "Opened"
		if o.PR.Updated {
			said = "Updated the open"
		}
		fmt.Fprintf(w, "%s pull request #%d for %s: %s\n", said, o.PR.Number, o.entry.ID, o.PR.URL)
		if o.PR.Onto != "" {
			fmt.Fprintf(w, "It targets %s, the branch of %s, which it is stacked on: burl never merges it there; once %s merged, git burl sync restacks %s onto %s and retargets the request to %s\n",
				o.PR.Onto, o.PR.StackedOn, o.PR.StackedOn, o.entry.ID, o.Main, o.Main)
			return
		}
		fmt.Fprintf(w, "The gates passed on %s rebased onto %s (drift: %d commit(s)); pushed %s\n", o.entry.Task.Branch(), o.Main, o.Drift, o.entry.Task.Branch())
		how := "a human merges it on the forge"
		switch {
		case o.prAuto && o.prAsked:
			how = "the forge merges it when its checks pass (pr_merge: auto)"
		case o.prAuto:
			how = "its checks pass and burl asks the forge to merge it (checks: " + o.checks + ")"
		}
		fmt.Fprintf(w, "%s stays in QA until %s; git burl sync then records DONE\n", o.entry.ID, how)
		return
	}
	if o.AlreadyDone {
		fmt.Fprintf(w, "%s is already DONE; removed what was left of its worktree and branch\n", o.entry.ID)
		return
	}
	if o.AcceptedLanded {
		fmt.Fprintf(w, "Accepted %s: its work landed in %s outside burl (%s holds it) and the gates passed on it\nQA → DONE\n", o.entry.ID, o.Main, gitx.Short(o.Merged))
		return
	}
	if o.Recovered {
		fmt.Fprintf(w, "Approved %s: its work was already in %s at %s (an interrupted approve is finished now)\nQA → DONE\n", o.entry.ID, o.Main, gitx.Short(o.Merged))
		return
	}
	fmt.Fprintf(w, "Approved %s: %s fast-forwarded to %s (drift: %d commit(s) on %s since claim)", o.entry.ID, o.Main, gitx.Short(o.Merged), o.Drift, o.Main)
	if o.Pushed {
		fmt.Fprint(w, ", pushed")
	}
	fmt.Fprintf(w, "\nQA → DONE; worktree and branch removed\n")
}

// queueOut is approve --all's output: land.QueueResult, whose JSON is the
// pinned document, told line by line.
type queueOut land.QueueResult

func (o *queueOut) ExitCode() int { return (*land.QueueResult)(o).ExitCode() }

func (o *queueOut) Human(w io.Writer) {
	for _, l := range o.Lines {
		fmt.Fprintln(w, l)
	}
	if o.Opened != nil {
		fmt.Fprintf(w, "approve --all: %d pull request(s) opened or updated, %d not approved, %d build(s)\n", len(o.Opened), len(o.Rejected), o.Builds)
		return
	}
	fmt.Fprintf(w, "approve --all: %d approved, %d not approved, %d build(s)\n", len(o.Approved), len(o.Rejected), o.Builds)
}

func (c *approveCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if c.DryRun {
		return c.dryRun(ctx, args)
	}
	if c.All {
		if len(args) > 0 {
			return nil, usageErr("approve", "takes no task ID with --all")
		}
		if c.AcceptLanded {
			return nil, usageErr("approve", "--accept-landed takes one task ID, not --all")
		}
		w, err := open(ctx)
		if err != nil {
			return nil, err
		}
		res, err := land.ApproveAll(w)
		if err != nil {
			return nil, err
		}
		return (*queueOut)(res), nil
	}
	id, err := taskArg(args, "approve")
	if err != nil {
		return nil, err
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	approve := land.Approve
	if c.AcceptLanded {
		approve = land.AcceptLanded
	}
	r, err := approve(w, id)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(r.Removed); r.Removed != "" && err != nil && within(ctx.Dir, r.Removed) {
		ctx.Warnf("this shell stands in %s, which approve just removed with the task's worktree (the work is on %s): cd %s",
			ctx.Dir, w.Config.MainBranch, w.Repo.Root)
	}
	return approveOut{Task: taskObject(w, r.Entry), Merged: r.Merged, Main: r.Main, Drift: r.Drift, Pushed: r.Pushed,
		Recovered: r.Recovered, AlreadyDone: r.AlreadyDone, AcceptedLanded: r.AcceptedLanded,
		PR: r.PR, prAuto: r.PRAuto, prAsked: r.PRAskedAtOpen, ReviewOverridden: r.ReviewOverridden, checks: w.Config.CI.Checks, entry: r.Entry}, nil
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}
