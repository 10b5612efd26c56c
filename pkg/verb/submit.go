package verb

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

func init() { register("submit", func() cli.Command { return &submitCmd{} }) }

type submitCmd struct {
	cli.JSONFlag
}

type submitOut struct {
	Task    map[string]any `json:"task"`
	Commits int            `json:"commits"`
	entry   workflow.Entry
}

func (o submitOut) Human(w io.Writer) {
	fmt.Fprintf(w, "Submitted %s: %d commit(s), head %s, DOING → QA\n", o.entry.ID, o.Commits, shortSHA(o.entry.Task.Str(task.KeySubmittedSHA)))
	fmt.Fprintf(w, "next: %s\n", workflow.Suggest(workflow.QA, o.entry.ID))
}

func (c *submitCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	id, err := w.TaskArgOrCurrent(args, ctx.Dir, "submit")
	if err != nil {
		return nil, err
	}
	var head string
	var commits int
	res, err := w.Run(workflow.Transition{
		Verb: "submit", ID: id, From: []workflow.Bucket{workflow.Doing}, To: workflow.QA,
		Message: "submit " + id,
		Prepare: func(tx *workflow.Tx) error {
			t := tx.Task
			dir, g, err := taskWorktree(w, t)
			if err != nil {
				return err
			}
			dirty, err := g.Run("status", "--porcelain", "--untracked-files=all")
			if err != nil {
				return err
			}
			if dirty != "" {
				return errs.New(errs.User, "the worktree %s has uncommitted or untracked changes:\n%s", w.Rel(dir), indentLines(dirty)).
					WithFix("commit them (git -C %s add -A && git -C %s commit), or remove them", dir, dir)
			}
			if head, err = g.Run("rev-parse", "HEAD"); err != nil {
				return err
			}
			base := diffBase(w, t, g, head)
			n, err := g.Run("rev-list", "--count", base+".."+head)
			if err != nil {
				return err
			}
			if commits, _ = strconv.Atoi(n); commits == 0 {
				return errs.New(errs.User, "branch %s has no commits of its own since %s", t.Branch(), shortSHA(base)).
					WithFix("commit your work in %s first", dir)
			}
			vs, err := diffGates(w, t, g, base, head)
			if err != nil {
				return err
			}
			if len(vs) > 0 {
				return gateError("submit", id, vs)
			}
			return nil
		},
		Apply: func(tx *workflow.Tx) error {
			tx.Task.SetTime(task.KeySubmittedAt, tx.Now)
			tx.Task.SetStr(task.KeySubmittedSHA, head)
			tx.Details["submitted_sha"] = head
			tx.Details["commits"] = commits
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	return submitOut{Task: taskObject(w, res.Entry), Commits: commits, entry: res.Entry}, nil
}

func indentLines(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}
