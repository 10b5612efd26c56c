package views

import (
	"os"
	"path/filepath"
	"time"

	"github.com/burl-dev/burl/pkg/budget"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/workflow"
)

// budgetToday is the day's spend against max_cost_usd_per_day (DESIGN
// §27), as the watches judge it.
func budgetToday(w *workflow.Workflow) (budget.State, error) {
	st, err := budget.Today(w.EventsDir(), w.Config.MaxCostUSDPerDay, time.Now())
	if err != nil {
		return st, errs.Wrap(err, errs.User, "Cannot read today's spend from the event log").
			WithFix("check that %s is readable (git burl doctor)", w.Rel(w.EventsDir()))
	}
	return st, nil
}

// raiseBudgetCommand is the command that raises the cap st reached, its
// paths relative to where the command runs, so it runs as printed.
func raiseBudgetCommand(ctx *cli.Context, w *workflow.Workflow, st budget.State) string {
	if !st.Reached {
		return ""
	}
	wt := w.Repo.Worktree
	here := ctx.Dir
	if here == "" {
		here, _ = os.Getwd()
	}
	// git reports real paths: a cwd through a symlink is compared as one.
	if real, err := filepath.EvalSymlinks(here); err == nil {
		if rel, err := filepath.Rel(real, wt); err == nil {
			wt = rel
		}
	}
	cfg, err := filepath.Rel(w.Repo.Worktree, filepath.Join(w.Dir, workflow.ConfigName))
	if err != nil {
		cfg = filepath.Join(w.Dir, workflow.ConfigName)
	}
	return budget.RaiseCommand(wt, filepath.ToSlash(cfg), budget.Raise(st))
}
