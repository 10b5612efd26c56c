package verb

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Release is `git burl release`: what cmd/git-burl-release runs. Only the
// verbs a binary names are linked into it.
func Release() cli.Command { return &releaseCmd{} }

type releaseCmd struct {
	cli.JSONFlag
	Reason string `long:"reason" short:"r" value-name:"TEXT" description:"Why the task is given back (recorded in the task)"`
}

func (c *releaseCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	// Standing in a task's worktree, the task is the one it holds.
	id, err := w.TaskArgOrCurrent(args, ctx.Dir, "release")
	if err != nil {
		return nil, err
	}
	// A watcher killed during a run leaves it to whoever releases its
	// task: the worktree's .git put back, the run's commits taken in.
	for _, n := range sandbox.Sweep(w.Repo, "") {
		fmt.Fprintf(ctx.Stderr, "burl: %s\n", n)
	}
	return move{verb: "release", label: "Released", from: []workflow.Bucket{workflow.Doing}, to: workflow.Ready,
		apply: func(w *workflow.Workflow, tx *workflow.Tx) error {
			releaseTask(w, tx, c.Reason)
			return nil
		},
		detail: func(workflow.Entry) string { return " (branch and worktree kept)" },
	}.run(ctx, id)
}

// releaseTask gives a DOING task back to READY inside a transaction (its
// branch and worktree stay), with why in its Implementation Notes.
func releaseTask(w *workflow.Workflow, tx *workflow.Tx, why string) {
	t := tx.Task
	who := t.Str(task.KeyAssignedTo)
	t.SetNull(task.KeyAssignedTo)
	if r := strings.TrimSpace(why); r != "" {
		t.AppendToSection("Implementation Notes", fmt.Sprintf("Released by %s at %s (was %s): %s", w.Actor, tx.Now.Format("2006-01-02T15:04:05Z"), who, oneLine(r)))
		tx.Details["reason"] = r
	}
	tx.Details["was_assigned_to"] = who
	tx.To = workflow.Ready
}
