// Package stack is stacked tasks (DESIGN §26, config stack: true): a task
// whose one unfinished dependency is submitted starts on that parent's
// submitted head instead of waiting for it to land. It records the parent
// (stacked_on) and where its own work starts (stack_base); it never lands
// before the parent; and when the parent lands it is restacked with
// `git rebase --onto <main> <stack_base>`, which replays only its own
// commits. A plain rebase would replay the parent's commits too, and after
// a squash they are no longer on main by hash: they conflict on the
// parent's own lines, or bring back a file the child deleted.
package stack

import (
	"fmt"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Parent is the task t can be claimed stacked on: with stack: true, its
// only dependency that is not DONE, when that one is in QA with a
// submitted head. nil when t is not stackable (or needs no stacking).
func Parent(w *workflow.Workflow, t *task.Task) (*workflow.Entry, error) {
	if !w.Config.Stack {
		return nil, nil
	}
	done, err := w.DoneSet(t)
	if err != nil {
		return nil, err
	}
	unmet := workflow.UnmetDeps(t, done)
	if len(unmet) != 1 {
		return nil, nil
	}
	return submitted(w, unmet[0]), nil
}

// submitted is task id when it is in QA with a submitted head, a parent
// to stack on; nil otherwise.
func submitted(w *workflow.Workflow, id string) *workflow.Entry {
	p, err := w.Get(id)
	if err != nil || p.Bucket != workflow.QA || p.Task == nil || p.Task.Str(task.KeySubmittedSHA) == "" {
		return nil
	}
	return p
}

// Unmet is what a READY task still waits for before it can be claimed,
// for claim's and watch's choice of the next task: its dependencies that
// are not DONE (done holds those that are), or none when, with stack:
// true, it can be claimed stacked on the one that is not (Parent).
func Unmet(w *workflow.Workflow, done map[string]bool) func(*task.Task) []string {
	parents := map[string]bool{}
	return func(t *task.Task) []string {
		unmet := workflow.UnmetDeps(t, done)
		if len(unmet) != 1 || !w.Config.Stack {
			return unmet
		}
		ok, seen := parents[unmet[0]]
		if !seen {
			ok = submitted(w, unmet[0]) != nil
			parents[unmet[0]] = ok
		}
		if ok {
			return nil
		}
		return unmet
	}
}

// Claimed records on t, in a claim's Apply, that it starts on parent's
// submitted head base.
func Claimed(t *task.Task, parent, base string) {
	t.SetStr(task.KeyStackedOn, parent)
	t.SetStr(task.KeyStackBase, base)
}

// Landable refuses to land t before the parent it is stacked on: the
// error names the parent and where it is.
func Landable(w *workflow.Workflow, t *task.Task) error {
	if why := Waits(w, t); why != "" {
		p := t.Str(task.KeyStackedOn)
		return errs.New(errs.User, "%s is stacked on %s, which %s: a stacked task lands after its parent", t.ID(), p, why).
			WithTitle("Cannot approve %s before %s", t.ID(), p).
			WithFix("approve %s first (git burl approve %s); %s is then restacked onto %s and can land", p, p, t.ID(), w.Config.MainBranch)
	}
	return nil
}

// Waits says why t, stacked on a parent, cannot land yet ("" when it can):
// the parent is not DONE.
func Waits(w *workflow.Workflow, t *task.Task) string {
	p := t.Str(task.KeyStackedOn)
	if p == "" {
		return ""
	}
	e, err := w.Get(p)
	switch {
	case err != nil:
		return "cannot be read (" + err.Error() + ")"
	case e.Bucket != workflow.Done:
		return "is in " + string(e.Bucket)
	case e.Task != nil && e.Task.Cancelled():
		return "was cancelled"
	}
	return ""
}

// Restack replays the own commits (stack_base..head) of each DOING or QA
// task stacked on parent onto main, now that parent landed there (as the
// commit landed), and
// moves stack_base (and base_sha) to main; a QA child's submitted_sha
// follows its branch. A QA child whose commits conflict goes back to
// READY with the files and the parent's landed commit in its QA report,
// for the agent whose run did it (BLOCKED, saying so, when a human
// claimed it: nobody would take it from READY with its work);
// a DOING child with uncommitted changes, or that conflicts, is left for
// its worker (said in the lines). It returns one line per child.
func Restack(w *workflow.Workflow, parent, landed string) []string {
	return RestackBut(w, parent, landed, nil)
}

// RestackBut is Restack leaving out the children staged says approve
// --all has staged on parent's staged commit already, to land next: the
// queue replays their own commits itself, and lands them as built.
func RestackBut(w *workflow.Workflow, parent, landed string, staged func(id string) bool) []string {
	main, err := w.Repo.Git.Run("rev-parse", "refs/heads/"+w.Config.MainBranch)
	if err != nil {
		return []string{fmt.Sprintf("cannot restack the tasks stacked on %s: %v", parent, err)}
	}
	return restackAll(w, parent, move{onto: main, where: w.Config.MainBranch, why: parent + " landed as " + gitx.Short(landed), landed: landed, staged: staged})
}

// Resubmitted restacks the tasks stacked on parent, which was submitted
// again at head, onto that head, as Restack does onto main.
func Resubmitted(w *workflow.Workflow, parent, head string) []string {
	return restackAll(w, parent, move{onto: head, where: parent + "'s new head " + gitx.Short(head), why: parent + " was submitted again at " + gitx.Short(head)})
}

// move is where a restack replays a child's own commits, and why.
type move struct {
	onto, where, why, landed string
	// staged: the children the queue staged already (nil: none).
	staged func(id string) bool
}

func restackAll(w *workflow.Workflow, parent string, mv move) []string {
	var lines []string
	for _, b := range []workflow.Bucket{workflow.Doing, workflow.QA} {
		es, _, err := w.InBucket(b)
		if err != nil {
			return append(lines, fmt.Sprintf("cannot list %s to restack the tasks stacked on %s: %v", b, parent, err))
		}
		for _, e := range es {
			if e.Task != nil && e.Task.Str(task.KeyStackedOn) == parent && (mv.staged == nil || !mv.staged(e.ID)) {
				lines = append(lines, restackOne(w, e, parent, mv))
			}
		}
	}
	return lines
}

func restackOne(w *workflow.Workflow, e workflow.Entry, parent string, mv move) string {
	t, id := e.Task, e.ID
	g, main := w.Repo.Git, mv.onto
	old := t.Str(task.KeyStackBase)
	// After a landing, a base main holds needs nothing (a fast-forward
	// landed the parent's very commits); a resubmitted parent's head that
	// descends from it holds commits the child lacks.
	if in, _ := g.Test("merge-base", "--is-ancestor", old, main); old == "" || old == main || in && mv.landed != "" {
		return fmt.Sprintf("%s is on %s already", id, mv.where)
	}
	if e.Bucket == workflow.Doing && t.Str(task.KeyLeaseHolder) != "" && !lease.Of(t, time.Now().UTC(), w.Config.LeaseGrace, w.Host).Gone() {
		// Its run works on this branch now: moving it under the run
		// would lose the one or the other. The approve that lands it
		// replays its own commits with rebase --onto all the same.
		return fmt.Sprintf("%s not restacked yet: its run is live; approving it replays its own commits onto %s (git rebase --onto)", id, w.Config.MainBranch)
	}
	wt := w.WorktreePath(t)
	if wt == "" {
		return fmt.Sprintf("%s not restacked: it has no worktree in this clone (git burl worktree --ensure %s, then git -C <it> rebase --onto %s %s)", id, id, gitx.Short(main), gitx.Short(old))
	}
	wg := gitx.In(wt)
	if dirty, _, err := workspace.Uncommitted(wg); err != nil || dirty != "" {
		return fmt.Sprintf("%s not restacked: its worktree %s has uncommitted changes; its worker runs git rebase --onto %s %s there", id, w.Rel(wt), gitx.Short(main), gitx.Short(old))
	}
	head, err := wg.Run("rev-parse", "HEAD")
	if err != nil {
		return fmt.Sprintf("%s not restacked: %v", id, err)
	}
	if e.Bucket == workflow.QA && head != t.Str(task.KeySubmittedSHA) {
		return fmt.Sprintf("%s not restacked: its branch moved after submit", id)
	}
	rec := recordMove(w, id, head, main)
	defer rec.drop()
	var conflict *integrate.Conflict
	if err := integrate.RebaseOnto(wg, main, old); err != nil {
		c, ok := err.(*integrate.Conflict)
		if !ok {
			return fmt.Sprintf("%s not restacked: %v", id, err)
		}
		conflict = c
	}
	if conflict != nil && e.Bucket == workflow.Doing {
		return fmt.Sprintf("%s not restacked: its commits conflict with %s in %s; its worker runs git rebase --onto %s %s and resolves them", id, mv.where, strings.Join(conflict.Files, ", "), gitx.Short(main), gitx.Short(old))
	}
	// A conflict goes back to the agent that did the work, in its next
	// prompt; a task a human claimed has none and waits in BLOCKED.
	agent := ""
	if conflict != nil {
		agent = w.RunAgent(t, t.Str(task.KeyAssignedTo))
	}
	newHead := head
	if conflict == nil {
		if newHead, err = wg.Run("rev-parse", "HEAD"); err != nil {
			return fmt.Sprintf("%s not restacked: %v", id, err)
		}
		rec.moved(newHead)
	}
	_, err = w.Run(workflow.Transition{Verb: "restack", ID: id, From: []workflow.Bucket{e.Bucket}, Message: "restack " + id,
		Apply: func(tx *workflow.Tx) error {
			tx.Details["parent"] = parent
			if mv.landed != "" {
				tx.Details["parent_landed"] = mv.landed
			} else {
				tx.Details["parent_head"] = mv.onto
			}
			tx.Details["from"] = old
			if conflict != nil {
				tx.Action = "reject"
				tx.Details["cause"] = "restack conflict"
				tx.Details["files"] = conflict.Files
				lines := []string{fmt.Sprintf("%s; replaying this task's own commits (%s..%s) onto %s conflicts in:", mv.why, gitx.Short(old), gitx.Short(head), mv.where)}
				for _, f := range conflict.Files {
					lines = append(lines, "- "+f)
				}
				lines = append(lines, fmt.Sprintf("Resolve with: git rebase --onto %s %s (in the task's worktree)", main, old))
				if agent == "" {
					// No agent to send it back to: a human resolves it,
					// in the worktree that still holds the work.
					tx.To, tx.Action = workflow.Blocked, "block"
					qa.Block(w, tx, fmt.Sprintf("restacking onto %s conflicts in %s (%s); resolve with git rebase --onto %s %s in its worktree, then git burl unblock %s --claim and submit",
						mv.where, strings.Join(conflict.Files, ", "), mv.why, gitx.Short(main), gitx.Short(old), id)+"\n"+strings.Join(lines, "\n"))
					return nil
				}
				qa.Reject(w, tx, "restack conflict: "+mv.why, lines)
				return nil
			}
			tx.Task.SetStr(task.KeyStackBase, main)
			tx.Task.SetStr(task.KeyBaseSHA, main)
			if e.Bucket == workflow.QA {
				tx.Task.SetStr(task.KeySubmittedSHA, newHead)
			}
			tx.Details["stack_base"] = main
			tx.Details["head"] = newHead
			return nil
		}})
	if err != nil {
		if conflict == nil && e.Bucket == workflow.QA {
			// The branch must stay where the task file says it was submitted.
			_, _ = wg.Run("reset", "-q", "--hard", head)
		}
		return fmt.Sprintf("%s not restacked: %v", id, err)
	}
	if conflict != nil && agent == "" {
		return fmt.Sprintf("%s BLOCKED: restacking it onto %s conflicts in %s (no agent works it: resolve it in %s)", id, mv.where, strings.Join(conflict.Files, ", "), w.Rel(wt))
	}
	if conflict != nil {
		return fmt.Sprintf("%s back to READY for %s: restacking it onto %s conflicts in %s", id, agent, mv.where, strings.Join(conflict.Files, ", "))
	}
	return fmt.Sprintf("restacked %s onto %s (git rebase --onto %s %s)", id, mv.where, gitx.Short(main), gitx.Short(old))
}
