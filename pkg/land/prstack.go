package land

// Stacked tasks with landing: pr (DESIGN §26). A task stacked on a parent
// whose pull request is open gets its own request onto the parent's
// branch: reviewers see its own change, and the forge never holds it
// against main before the parent is there. burl never asks the forge to
// merge such a request. Once the parent merged, a settle round restacks
// the child onto the remote's main (git rebase --onto), approves it again
// there (its gates on the restacked commits, a push with lease) and so
// retargets its request to main; only then is the parent's branch
// deleted, since a forge closes (or retargets on its own) the requests of
// a base branch that goes.

import (
	"fmt"
	"sort"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// keyPRBase is the branch a QA task's open pull request targets when that
// is not main: its parent's, while the parent's request is open.
const keyPRBase = "pr_base"

// parentPR is the parent t is stacked on while that one waits in QA with
// its pull request open (landing: pr): t's request then targets the
// parent's branch. nil otherwise.
func parentPR(w *workflow.Workflow, t *task.Task) *workflow.Entry {
	p := t.Str(task.KeyStackedOn)
	if w.Config.Landing != "pr" || p == "" {
		return nil
	}
	e, err := w.Get(p)
	if err != nil || e.Bucket != workflow.QA || e.Task == nil || PRNumber(e.Task) == 0 || e.Task.Str(keyPRHead) == "" || e.Task.Branch() == "" {
		return nil
	}
	return e
}

// onParent reports whether t's open pull request targets its parent's
// branch, not main: the forge is never asked to merge it.
func onParent(w *workflow.Workflow, t *task.Task) bool {
	b := t.Str(keyPRBase)
	return b != "" && b != w.Config.MainBranch
}

// prTarget is where approve opens t's pull request: onto its parent's
// gated head on the parent's branch while the parent's request is open,
// else onto main at base (the remote's main). A child whose parent has
// not landed and has no open request is refused, naming the parent.
func prTarget(w *workflow.Workflow, t *task.Task, base string) (onto, at string, err error) {
	p := parentPR(w, t)
	if p == nil {
		if err := stack.Landable(w, t); err != nil {
			return "", "", err
		}
		return w.Config.MainBranch, base, nil
	}
	head, branch := p.Task.Str(keyPRHead), p.Task.Branch()
	g := w.Repo.Git
	if ok, _ := g.Test("cat-file", "-e", head+"^{commit}"); !ok {
		_ = g.FetchTracking(w.Config.Remote, branch)
		if ok, _ := g.Test("cat-file", "-e", head+"^{commit}"); !ok {
			return "", "", errs.New(errs.Git, "%s is stacked on %s, whose pull request head %s is neither here nor on %s/%s", t.ID(), p.ID, gitx.Short(head), w.Config.Remote, branch).
				WithFix("git fetch %s %s, then approve %s again", w.Config.Remote, branch, t.ID())
		}
	}
	return branch, head, nil
}

// stackedPR is approve's account of the request it opened onto onto.
func stackedPR(w *workflow.Workflow, t *task.Task, pr PR, onto string) *PR {
	if onto != w.Config.MainBranch {
		pr.Onto, pr.StackedOn = onto, t.Str(task.KeyStackedOn)
	}
	return &pr
}

// stackedOnBranch are the QA tasks whose open pull request targets
// branch.
func stackedOnBranch(w *workflow.Workflow, branch string) []string {
	es, _, err := w.InBucket(workflow.QA)
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range es {
		if e.Task != nil && PRNumber(e.Task) > 0 && e.Task.Str(keyPRBase) == branch {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// parentsFirst orders ids so that a task comes after the task it is
// stacked on when both are in ids: approve --all opens the parent's
// request first, and the child's then targets it.
func parentsFirst(w *workflow.Workflow, ids []string) []string {
	parent := map[string]string{}
	for _, id := range ids {
		if e, err := w.Get(id); err == nil && e.Task != nil {
			parent[id] = e.Task.Str(task.KeyStackedOn)
		}
	}
	return orderParentsFirst(ids, parent)
}

// orderParentsFirst is parentsFirst's order: by how many of a task's
// ancestors (parent maps a task to the one it is stacked on) are in ids,
// stable otherwise.
func orderParentsFirst(ids []string, parent map[string]string) []string {
	in := map[string]bool{}
	for _, id := range ids {
		in[id] = true
	}
	depth := func(id string) int {
		d := 0
		for p := parent[id]; in[p] && d < len(ids); p = parent[p] {
			d++
		}
		return d
	}
	out := append([]string(nil), ids...)
	sort.SliceStable(out, func(i, j int) bool { return depth(out[i]) < depth(out[j]) })
	return out
}

// retargetStacked is a settle round's last step: the tasks stacked on a
// parent merged this round (landed maps each to the commit holding it)
// are restacked onto the remote's main at target, as approve restacks
// them after a local landing; and every open request that targets a
// parent's branch whose task is DONE now (merged this round, or in an
// earlier round that did not finish this) is approved again there, which
// retargets it to main. Each child's result replaces its line in rep;
// the parent's branch is deleted once no request targets it any more.
func retargetStacked(w *workflow.Workflow, rep *SettleReport, open []workflow.Entry, landed map[string]string, target string) {
	byParent := map[string][]string{}
	var parents []string
	if w.Config.Stack {
		for _, o := range open {
			if _, ok := landed[o.ID]; ok {
				parents = append(parents, o.ID)
				byParent[o.ID] = nil
			}
		}
	}
	for _, o := range open {
		if o.Task == nil || !onParent(w, o.Task) {
			continue
		}
		e, err := w.Get(o.ID)
		if err != nil || e.Bucket != workflow.QA || e.Task == nil || PRNumber(e.Task) == 0 || !onParent(w, e.Task) {
			continue
		}
		p := e.Task.Str(task.KeyStackedOn)
		pe, err := w.Get(p)
		if err != nil || pe.Bucket != workflow.Done || pe.Task == nil || pe.Task.Cancelled() {
			continue
		}
		if _, ok := byParent[p]; !ok {
			parents = append(parents, p)
		}
		byParent[p] = append(byParent[p], e.ID)
	}
	where := w.Config.Remote + "/" + w.Config.MainBranch
	for _, p := range parents {
		pe, err := w.Get(p)
		if err != nil {
			continue
		}
		for _, id := range byParent[p] {
			// The restack replays in the child's worktree: one is made
			// from its branch where this clone has none.
			if e, err := w.Get(id); err == nil {
				if err := qa.ForQA(w, e); err != nil {
					fmt.Fprintf(w.Stderr, "burl: %s: %v\n", id, err)
				}
			}
		}
		at := landed[p]
		if at == "" {
			at = target
		}
		for _, l := range stack.LandedOn(w, p, at, target, where) {
			fmt.Fprintf(w.Stderr, "burl: %s\n", l)
		}
		if len(byParent[p]) == 0 {
			continue
		}
		all := true
		for _, id := range byParent[p] {
			s := retargetOne(w, id, p)
			if s.Result != "retargeted" {
				all = false
			}
			replaceSettled(rep, s)
		}
		if all {
			deleteRemoteBranch(w, pe.Task.Branch(), pe.Task.Str(keyPRHead))
		} else {
			fmt.Fprintf(w.Stderr, "burl: kept %s/%s: a request stacked on %s still targets it\n", w.Config.Remote, pe.Task.Branch(), p)
		}
	}
}

// retargetOne approves child again now that parent merged: its gates on
// the restacked commits, the push (with lease) of them to its branch, and
// the update of its open request, onto main.
func retargetOne(w *workflow.Workflow, id, parent string) Settled {
	e, err := w.Get(id)
	if err != nil {
		return Settled{Task: id, Result: "not_retargeted", Reason: err.Error()}
	}
	s := Settled{Task: id, Number: PRNumber(e.Task), URL: e.Task.Str(keyPRURL), Result: "not_retargeted"}
	from := e.Task.Str(keyPRBase)
	if head := e.Task.Str(task.KeySubmittedSHA); gatesFailedOn(w, id, head) {
		s.Reason = fmt.Sprintf("not retargeted to %s after %s merged: its gates failed on its head %s, and run again on a new head (or git burl approve %s after a fix elsewhere)",
			w.Config.MainBranch, parent, gitx.Short(head), id)
		fmt.Fprintf(w.Stderr, "burl: %s: %s\n", id, s.Reason)
		return s
	}
	err = reapprove(w, e)
	if err != nil {
		s.Reason = fmt.Sprintf("not retargeted to %s after %s merged: %s", w.Config.MainBranch, parent, qa.OneLine(err.Error()))
		if f, ok := err.(*errs.Error); ok && f.Fix != "" {
			s.Reason += " (" + f.Fix + ")"
		}
		fmt.Fprintf(w.Stderr, "burl: %s: %s\n", id, s.Reason)
		if now, gerr := w.Get(id); gerr == nil && now.Bucket != workflow.QA {
			s.To = string(now.Bucket)
		}
		return s
	}
	now, err := w.Get(id)
	if err != nil {
		return s
	}
	s.Result = "retargeted"
	s.Number, s.URL = PRNumber(now.Task), now.Task.Str(keyPRURL)
	s.Reason = fmt.Sprintf("%s merged: restacked onto %s/%s at %s, its request moved from %s to %s",
		parent, w.Config.Remote, w.Config.MainBranch, gitx.Short(now.Task.Str(keyPRHead)), from, w.Config.MainBranch)
	return s
}

// reapprove is approve of a QA task whose request is open already, from
// a settle round: what single approve checks first (the gate inputs
// committed and trusted, the work in this clone), then the pull request
// path. The review gate passed on the child's own change, which the
// restack replays unchanged; the gates run again on the result.
func reapprove(w *workflow.Workflow, e *workflow.Entry) error {
	if err := w.CheckConfigInput(); err != nil {
		return err
	}
	if err := trust.Check(w.Repo, qa.Commands(w, e.Task, e.Path, "build", "verify")...); err != nil {
		return err
	}
	if why := elsewhere(w, e.Task); why != "" {
		return errs.New(errs.User, "%s %s", e.ID, why)
	}
	_, err := approvePR(w, e.ID, "")
	return err
}

// replaceSettled puts s in place of the round's earlier line for the same
// task (its judgement as open), or adds it.
func replaceSettled(rep *SettleReport, s Settled) {
	for i := range rep.PRs {
		if rep.PRs[i].Task == s.Task {
			rep.PRs[i] = s
			return
		}
	}
	rep.PRs = append(rep.PRs, s)
}
