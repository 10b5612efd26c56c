package land

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/merged"
	"github.com/burl-dev/burl/pkg/record"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// What each way of landing tells the landing record (DESIGN §22): which
// commits of main's first-parent history hold the work, and what the gates
// did. done() hands it to record.Land.

// landing is the record of an approve's landing: the fast-forward of
// approve and the queue (exactly base..merged), or work found on main
// already (an interrupted approve finished, --accept-landed,
// merge_strategy manual), whose commits are looked for there.
func (a *approval) landing(w *workflow.Workflow, t *task.Task) (record.Landing, error) {
	l := record.Landing{Kind: record.KindApprove, Base: a.base, Merged: a.merged, Gates: record.GatesOf(w.Config, t, a.runs, a.builtOn)}
	if a.onMain != "" {
		l.Kind = record.KindQueue
	}
	if a.squashed {
		l.MergeStyle = integrate.StyleSquash
	}
	switch {
	case a.accepted:
		// The gates ran on the task's commits and on main as it was (a.base
		// once finishMerged ran): the build's commit is named.
		l.Kind = record.KindAcceptLanded
		l.Gates = record.GatesOf(w.Config, t, a.runs, a.base)
		return l, spanOn(w, t, t.Str(task.KeySubmittedSHA), &l)
	case a.recovered:
		// The killed approve passed every gate before it moved main; its
		// intent says where main went.
		l.Recovered = true
		l.Gates = record.RecoveredGates(w.Config, t)
		if in := integrate.ReadIntent(w.Repo.CommonDir, t.ID()); in != nil && in.Merged != "" && in.Base != "" {
			l.Base, l.Merged, l.MergeStyle = in.Base, in.Merged, in.Style
			return l, nil
		}
		return l, spanOn(w, t, a.merged, &l)
	case w.Config.MergeStrategy == "manual":
		return l, spanOn(w, t, a.merged, &l)
	}
	return l, nil
}

// spanOn sets l to the commits of main's first-parent history that hold
// work (a commit of the task, or its rebased head): work itself and the
// task's commits before it when work is on that history (a fast-forward),
// else the merge commit that brought it in. Work merged by patch (a
// rebase or a squash by hand) is found as the pull requests' is.
func spanOn(w *workflow.Workflow, t *task.Task, work string, l *record.Landing) error {
	g, main := w.Repo.Git, "refs/heads/"+w.Config.MainBranch
	l.Base = ""
	if in, err := g.Test("merge-base", "--is-ancestor", work, main); err != nil {
		return err
	} else if !in {
		sha, how, err := merged.Landed(g, t.BaseSHA(), work, main)
		if err != nil {
			return err
		}
		l.Merged, l.Count = sha, 1
		if how == merged.ByCherry {
			l.Count = taskCommits(g, t)
		}
		return nil
	}
	return hold(g, t, work, main, l)
}

// hold sets l to the commits of onto's first-parent history that hold
// work, an ancestor of onto: work and the task's commits before it when
// work is on that history (a fast-forward), else the merge commit that
// brought it in. One git rev-list lists the commits that descend from
// work (with their parents); going down onto's first parents among them,
// the last one is the merge, unless its first parent is work.
// (rev-list --first-parent --ancestry-path would not do: it drops the
// merge, whose first parent does not descend from work.)
func hold(g gitx.Git, t *task.Task, work, onto string, l *record.Landing) error {
	out, err := g.Run("rev-list", "--ancestry-path", "--parents", work+".."+onto)
	if err != nil {
		return err
	}
	first := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			first[f[0]] = f[1]
		}
	}
	l.Merged, l.Count = work, taskCommits(g, t)
	c, err := g.Run("rev-parse", "--verify", onto+"^{commit}")
	if err != nil {
		return err
	}
	for {
		p, ok := first[c]
		switch {
		case !ok:
			return nil // work is onto
		case p == work:
			return nil // a fast-forward: work is on the first-parent line
		case first[p] == "":
			l.Merged, l.Count = c, 1
			return nil
		}
		c = p
	}
}

// taskCommits is the number of commits the task submitted, which a
// rebase (approve's, or a forge's rebase merge) keeps.
func taskCommits(g gitx.Git, t *task.Task) int {
	out, err := g.Run("rev-list", "--count", t.BaseSHA()+".."+t.Str(task.KeySubmittedSHA))
	n, _ := strconv.Atoi(out)
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// PRLanding is the record of a pull request the forge merged: its commits
// as git recognised them on the remote's main (§17), the gates as approve
// recorded them when it opened the request (record.Land reads them from
// the pr_open event), and the forge's checks where they gate it: passed
// when a settle round saw them pass on the gated head.
func PRLanding(w *workflow.Workflow, t *task.Task, s Settled) (record.Landing, error) {
	l := record.Landing{Kind: record.KindPR, Merged: s.MergedSHA, Count: 1, Gated: t.Str(keyPRHead),
		MergeStyle: w.Config.PRMergeStyle, How: s.How, PR: &record.PR{Number: s.Number, URL: s.URL}}
	if ci := w.Config.CI; ci.Gates() {
		l.Checks = &record.Gate{Result: record.NotSeen, Command: fmt.Sprintf("the forge's checks on pull request #%d (checks: %s)", s.Number, ci.Checks)}
		if s.Checks == "success" {
			l.Checks.Result = record.Pass
		}
	}
	g, head := w.Repo.Git, t.Str(keyPRHead)
	switch s.How {
	case merged.ByCherry:
		l.Count = taskCommits(g, t)
	case merged.ByAncestry:
		return l, hold(g, t, head, gitx.Tracking(w.Config.Remote, w.Config.MainBranch), &l)
	}
	return l, nil
}
