package land

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/taskgate"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Work that reached main without burl's approve (DESIGN §15): approve
// refuses to record it DONE, and --accept-landed is how a human accepts it
// after the gates ran on it.

// landedOutside is approve's answer to a QA task whose commits are in main
// though no approve of this clone recorded moving main there (exit 2).
func landedOutside(w *workflow.Workflow, t *task.Task) error {
	main := w.Config.MainBranch
	return errs.New(errs.Validation, "%s is in QA and its commits are in %s already, but no burl approve put them there (a hand merge, or an agent's git merge), so no gate ran on them:\n%s",
		t.ID(), main, indentLines(integrate.LandedCommits(w.Repo.Git, main, t.BaseSHA(), t.Str(task.KeySubmittedSHA)))).
		WithTitle("Cannot approve %s: its work landed in %s outside burl", t.ID(), main).
		WithFix("decide as a human: to accept the work as it is in %s, with the gates run on it: git burl approve --accept-landed %s; to refuse it: git burl reject %s --reason \"...\" (and revert it from %s yourself)",
			main, t.ID(), t.ID(), main)
}

// acceptLandedWork runs the gates on work already in main: scope and stubs
// on the task's commits, build_command and verify on main's tree (in a
// detached worktree of its own). When they pass, the approve is finished
// as an interrupted one would be; when not, the task stays in QA with the
// report.
func (a *approval) acceptLandedWork(w *workflow.Workflow, tx *workflow.Tx) error {
	t, g := tx.Task, w.Repo.Git
	main, err := g.Run("rev-parse", "refs/heads/"+w.Config.MainBranch)
	if err != nil {
		return err
	}
	a.base, a.merged = t.BaseSHA(), t.Str(task.KeySubmittedSHA)
	if a.diff, err = taskgate.CheckRange(w, t, g, a.base, a.merged); err != nil {
		return err
	}
	dir := filepath.Join(w.Repo.WorktreesDir(), "accept-"+strings.ToLower(t.ID()))
	// One a killed --accept-landed left is ours to replace.
	_ = workspace.Remove(g, dir, true)
	if _, err := g.Run("worktree", "add", "-q", "--detach", dir, main); err != nil {
		return errs.Wrap(err, errs.Git, "Cannot check out "+w.Config.MainBranch+" to build it")
	}
	defer func() {
		if err := workspace.Remove(g, dir, true); err != nil {
			fmt.Fprintf(w.Stderr, "burl: warning: could not remove %s: %v (git burl clean removes it)\n", w.Rel(dir), err)
		}
	}()
	runs, cmdV, err := qa.Run(w, t, dir, tx.Now, "build", "verify")
	if err != nil {
		return err
	}
	a.runs = runs
	a.failed = append(append(a.failed, a.diff...), cmdV...)
	if len(a.failed) > 0 {
		return nil
	}
	a.accepted = true
	return a.finishMerged(w, t)
}
