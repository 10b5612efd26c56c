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
const keyPRBase = task.KeyPRBase

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

// Reapprove is approve of a QA task whose request is open already, from
// a settle round: what single approve checks first (the gate inputs
// committed and trusted, the work in this clone), then the pull request
// path. The review gate passed on the child's own change, which the
// restack replays unchanged; the gates run again on the result.
func Reapprove(w *workflow.Workflow, e *workflow.Entry) error {
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
