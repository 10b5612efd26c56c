package upkeep

import (
	"fmt"
	"io"
	"os"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/verb"
)

// Worktree is `git burl worktree`: what cmd/git-burl-worktree runs. Only the
// verbs a binary names are linked into it.
func Worktree() cli.Command { return &worktreeCmd{} }

type worktreeCmd struct {
	cli.JSONFlag
	Ensure bool `long:"ensure" description:"Recreate the worktree from the task's branch when it is missing (e.g. on another machine)"`
}

type worktreeOut struct {
	ID       string `json:"id"`
	Worktree string `json:"worktree"`
	Branch   string `json:"branch"`
	Exists   bool   `json:"exists"`
	Created  bool   `json:"created"`
}

func (o worktreeOut) Human(w io.Writer) { fmt.Fprintln(w, o.Worktree) }

func (c *worktreeCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	id, err := w.TaskArgOrCurrent(args, ctx.Dir, "worktree")
	if err != nil {
		return nil, err
	}
	if c.Ensure {
		e, created, err := qa.Ensure(w, id)
		if err != nil {
			return nil, err
		}
		return worktreeOut{ID: id, Worktree: w.WorktreePath(e.Task), Branch: e.Task.Branch(), Exists: true, Created: created}, nil
	}
	e, err := w.Get(id)
	if err != nil {
		return nil, err
	}
	p := w.WorktreePath(e.Task)
	if p == "" {
		return nil, errs.New(errs.User, "%s has no worktree (it is in %s and was never claimed)", id, e.Bucket).
			WithFix("git burl claim %s", id)
	}
	_, serr := os.Stat(p)
	return worktreeOut{ID: id, Worktree: p, Branch: e.Task.Branch(), Exists: serr == nil}, nil
}
