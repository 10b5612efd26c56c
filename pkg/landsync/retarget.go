package landsync

import (
	"fmt"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/land"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// gatesFailedOn reports whether task id's gates failed on its head head
// since it was last submitted or restacked: a settle round does not
// retarget it again (each sync would run them again on the same
// commits); a new head does, or a human's approve.
func gatesFailedOn(w *workflow.Workflow, id, head string) bool {
	evs, _, err := events.Read(w.EventsDir(), events.Filter{Task: id})
	if err != nil || head == "" {
		return false
	}
	failed := ""
	for _, e := range evs {
		switch e.Action {
		case "approve":
			failed = ""
			if r, _ := e.Details["result"].(string); r == "fail" {
				failed, _ = e.Details["submitted_sha"].(string)
			}
		case "submit", "restack", "reject", "claim", "pr_open":
			// A new head, or the gates passed on this one.
			failed = ""
		}
	}
	return failed == head
}

// onParent reports whether t's open pull request targets its parent's
// branch, not main: the forge is never asked to merge it.
func onParent(w *workflow.Workflow, t *task.Task) bool {
	b := t.Str(keyPRBase)
	return b != "" && b != w.Config.MainBranch
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
		if e.Task != nil && land.PRNumber(e.Task) > 0 && e.Task.Str(keyPRBase) == branch {
			ids = append(ids, e.ID)
		}
	}
	return ids
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
		if err != nil || e.Bucket != workflow.QA || e.Task == nil || land.PRNumber(e.Task) == 0 || !onParent(w, e.Task) {
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
			land.DeleteRemoteBranch(w, pe.Task.Branch(), pe.Task.Str(keyPRHead))
		} else {
			fmt.Fprintf(w.Stderr, "burl: kept %s/%s: a request stacked on %s still targets it\n", w.Config.Remote, pe.Task.Branch(), p)
		}
	}
}

// retargetOne approves child again now that parent merged: its gates on
// the restacked commits, the push (with lease) of them to its branch, and
// the update of its open request, onto main.
func retargetOne(w *workflow.Workflow, id, parent string) land.Settled {
	e, err := w.Get(id)
	if err != nil {
		return land.Settled{Task: id, Result: "not_retargeted", Reason: err.Error()}
	}
	s := land.Settled{Task: id, Number: land.PRNumber(e.Task), URL: e.Task.Str(keyPRURL), Result: "not_retargeted"}
	from := e.Task.Str(keyPRBase)
	if head := e.Task.Str(task.KeySubmittedSHA); gatesFailedOn(w, id, head) {
		s.Reason = fmt.Sprintf("not retargeted to %s after %s merged: its gates failed on its head %s, and run again on a new head (or git burl approve %s after a fix elsewhere)",
			w.Config.MainBranch, parent, gitx.Short(head), id)
		fmt.Fprintf(w.Stderr, "burl: %s: %s\n", id, s.Reason)
		return s
	}
	err = land.Reapprove(w, e)
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
	s.Number, s.URL = land.PRNumber(now.Task), now.Task.Str(keyPRURL)
	s.Reason = fmt.Sprintf("%s merged: restacked onto %s/%s at %s, its request moved from %s to %s",
		parent, w.Config.Remote, w.Config.MainBranch, gitx.Short(now.Task.Str(keyPRHead)), from, w.Config.MainBranch)
	return s
}

// replaceSettled puts s in place of the round's earlier line for the same
// task (its judgement as open), or adds it.
func replaceSettled(rep *SettleReport, s land.Settled) {
	for i := range rep.PRs {
		if rep.PRs[i].Task == s.Task {
			rep.PRs[i] = s
			return
		}
	}
	rep.PRs = append(rep.PRs, s)
}
