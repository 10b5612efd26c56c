package gates

import (
	"fmt"
	"io"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/taskgate"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Validate is `git burl validate`: what cmd/git-burl-validate runs. Only the
// verbs a binary names are linked into it.
func Validate() cli.Command { return &validateCmd{} }

type validateCmd struct {
	cli.JSONFlag
}

type validateOut struct {
	Task     map[string]any   `json:"task"`
	Passed   bool             `json:"passed"`
	Head     string           `json:"head"`
	Commands []gate.RunResult `json:"commands"`
	entry    workflow.Entry
}

func (o validateOut) Human(w io.Writer) {
	fmt.Fprintf(w, "Validated %s at %s: scope pass, stubs pass", o.entry.ID, gitx.Short(o.Head))
	for _, r := range o.Commands {
		fmt.Fprintf(w, ", %s pass (%.1fs)", r.Name, r.Seconds)
	}
	fmt.Fprintf(w, "\nReport appended to %s\n", o.Task["path"])
	if s := workflow.Suggest(o.entry.Bucket, o.entry.ID); s != "" && o.entry.Bucket == workflow.QA {
		fmt.Fprintf(w, "next: git burl approve %s\n", o.entry.ID)
	}
}

func (c *validateCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	// Standing in a task's worktree, the task is the one it holds.
	id, err := w.TaskArgOrCurrent(args, ctx.Dir, "validate")
	if err != nil {
		return nil, err
	}
	if e, err := w.Get(id); err == nil {
		// An uncommitted gate input is named first: trusting it would not
		// make the gates read it.
		if err := w.CheckConfigInput(); err != nil {
			return nil, err
		}
		if err := trust.Check(w.Repo, qa.Commands(w, e.Task, e.Path, "build", "verify")...); err != nil {
			return nil, err
		}
		if err := qa.ForQA(w, e); err != nil {
			return nil, err
		}
	}
	var head, base string
	var diff, failed gate.Violations
	var runs []gate.RunResult
	res, err := w.Run(workflow.Transition{
		Verb: "validate", ID: id, From: []workflow.Bucket{workflow.QA, workflow.Doing},
		Message: "validate " + id,
		Prepare: func(tx *workflow.Tx) error {
			t := tx.Task
			dir, g, err := qa.Worktree(w, t)
			if err != nil {
				return err
			}
			if head, err = g.Run("rev-parse", "HEAD"); err != nil {
				return err
			}
			base = taskgate.Base(w, t, g, head)
			if diff, err = taskgate.CheckRange(w, t, g, base, head); err != nil {
				return err
			}
			var cmdV gate.Violations
			if runs, cmdV, err = qa.Run(w, t, dir, tx.Now, "build", "verify"); err != nil {
				return err
			}
			failed = append(append(gate.Violations{}, diff...), cmdV...)
			return nil
		},
		Apply: func(tx *workflow.Tx) error {
			title := "Validate PASS"
			if len(failed) > 0 {
				title = "Validate FAIL"
			}
			tx.Task.AppendToSection("QA Report", qa.Report(title, tx.Now, w.Actor, base, head, diff, runs))
			tx.Details["result"] = map[bool]string{true: "pass", false: "fail"}[len(failed) == 0]
			tx.Details["head"] = head
			tx.Details["violations"] = len(failed)
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	if len(failed) > 0 {
		return nil, taskgate.Error(w, "validate", id, failed)
	}
	if runs == nil {
		runs = []gate.RunResult{}
	}
	return validateOut{Task: verb.TaskObject(w, res.Entry), Passed: true, Head: head, Commands: runs, entry: res.Entry}, nil
}
