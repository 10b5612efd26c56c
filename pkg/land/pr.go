package land

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/landforge"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/record"
	"github.com/burl-dev/burl/pkg/review"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/taskgate"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// The frontmatter of a task whose pull request is open (DESIGN §17).
const (
	keyPRURL    = task.KeyPRURL
	keyPRNumber = task.KeyPRNumber
	keyPRHead   = task.KeyPRHead
)

// keyPROpenedAt is when the request was opened at pr_head.
const keyPROpenedAt = task.KeyPROpenedAt

// PR is the pull request an approve opened or updated: approve --json's
// "pr".
type PR struct {
	Number int    `json:"number"`
	URL    string `json:"url"`
	// Updated: the pull request was open already (an earlier approve's,
	// sent back with changes requested) and approve updated it.
	Updated bool `json:"updated"`
	// Onto is the parent's branch the request targets, for a task stacked
	// on a parent whose request is open (DESIGN §26); empty: main.
	Onto string `json:"onto,omitempty"`
	// StackedOn is that parent.
	StackedOn string `json:"stacked_on,omitempty"`
}

// approvePR is approve with landing: pr: everything single approve does up
// to the fast-forward (rebase onto the remote's main, the gates on the
// rebased range, build and verify), then the rebased commits go to the
// task branch on the remote and the pull request is opened, or updated
// when one is open for that branch already. The task stays in QA with
// pr_url, pr_number and pr_head; sync settles it when the forge merges or
// closes it. The local task branch goes back to submitted_sha, as after
// any approve that did not land.
func approvePR(w *workflow.Workflow, id, overridden string) (Result, error) {
	if w.Config.MergeStrategy == "manual" {
		return Result{}, errs.New(errs.User, "merge_strategy: manual and landing: pr do not go together: with manual a human merges into %s, with pr the forge does", w.Config.MainBranch).
			WithFix("set merge_strategy: rebase_ff_only (or ff_only) in .burl/.workflow/config.yaml, and commit it")
	}
	prov, err := landforge.ForgeFor(w)
	if err != nil {
		return Result{}, err
	}
	a := &approval{overridden: overridden}
	var pr forge.PR
	// onto: main, or the parent's branch for a task stacked on a parent
	// whose request is open.
	var onto string
	res, err := w.Run(workflow.Transition{
		Verb: "pr_open", ID: id, From: []workflow.Bucket{workflow.QA}, To: workflow.QA,
		Message: "pr_open " + id,
		Prepare: func(tx *workflow.Tx) error { return a.openPR(w, tx, prov, &pr, &onto) },
		Apply: func(tx *workflow.Tx) error {
			if a.conflict != nil || len(a.failed) > 0 {
				if a.conflict == nil {
					tx.Action = "approve"
				}
				return a.record(w, tx)
			}
			recordOverride(w, tx, a.overridden)
			recordPR(w, tx, a, pr, onto)
			return nil
		},
	})
	if err != nil {
		return Result{}, err
	}
	if err := a.refusal(w, id, res); err != nil {
		return Result{}, err
	}
	// A request onto the parent's branch is never merged: its work goes
	// to main after the parent's, through the same request retargeted.
	asked := onto == w.Config.MainBranch && landforge.AskMergeAtOpen(w, prov)
	if asked {
		pr.KeepBranch = w.Config.Stack
		if err := prov.Merge(pr, w.Config.PRMergeStyle); err != nil {
			// The pull request is open and recorded: a human or the next
			// approve can still merge it.
			fmt.Fprintf(w.Stderr, "burl: warning: %s did not take the request to merge #%d when its checks pass: %v\n", prov.Name(), pr.Number, err)
		}
	}
	return Result{Entry: res.Entry, Main: w.Config.MainBranch, Drift: a.drift, Pushed: true, ReviewOverridden: overridden,
		PR: stackedPR(w, res.Entry.Task, PR{Number: pr.Number, URL: pr.URL, Updated: pr.WasOpen}, onto), PRAuto: w.Config.PRMerge == "auto", PRAskedAtOpen: asked}, nil
}

// refusal is the error of an approve whose rebase conflicted or whose
// gates failed (the transaction recorded both).
func (a *approval) refusal(w *workflow.Workflow, id string, res *workflow.Result) error {
	switch {
	case a.conflict != nil:
		return errs.New(errs.Git, "rebasing %s onto %s conflicts in:\n  %s\n%s went back to %s (qa_attempts %d); main, the remote and the task branch are unchanged",
			res.Entry.Task.Branch(), w.Config.MainBranch, strings.Join(a.conflict.Files, "\n  "), id, res.Entry.Bucket, res.Entry.Task.Int(task.KeyQAAttempts)).
			WithTitle("Cannot approve %s: rebase conflict", id).
			WithFix("the next worker rebases %s onto %s and resolves the conflict: git burl claim %s", res.Entry.Task.Branch(), w.Config.MainBranch, id)
	case a.redChecks != "":
		return errs.New(errs.Validation, "the forge's checks failed on %s (%s, rebased onto %s at %s): %s; %s is in %s, %s and the remote are unchanged",
			landforge.QueueBranch(id), gitx.Short(a.merged), w.Config.MainBranch, gitx.Short(a.base), a.redChecks, id, res.Entry.Bucket, w.Config.MainBranch).
			WithTitle("Cannot approve %s: the forge's checks failed", id).
			WithFix("the failed checks and their logs are in git burl show %s and in its next worker's prompt", id)
	case len(a.failed) > 0:
		return taskgate.Error(w, "approve", id, a.failed)
	}
	return nil
}

// openPR is approvePR's git and forge work, under the task lock.
func (a *approval) openPR(w *workflow.Workflow, tx *workflow.Tx, prov forge.Provider, pr *forge.PR, onto *string) error {
	t := tx.Task
	dir, g, err := approvableBranch(w, t)
	if err != nil {
		return err
	}
	if a.base, err = integrate.For(w).Base(); err != nil {
		return err
	}
	if *onto, a.base, err = prTarget(w, t, a.base); err != nil {
		return err
	}
	if done, err := a.rebase(w, t, g); err != nil || done {
		return err
	}
	// Whatever happens next, the local branch goes back to what was
	// submitted: the rebased commits live on the remote's branch.
	defer func() { _ = restoreBranch(g, t) }()
	if a.merged == a.base {
		// Every commit was dropped by the rebase as already upstream: the
		// request was merged (or the work pushed) and not settled yet.
		return errs.New(errs.User, "%s's work is on %s/%s already: there is nothing left to open a pull request for", t.ID(), w.Config.Remote, w.Config.MainBranch).
			WithFix("git burl sync records it DONE (a merge by the forge or by hand is recognised)")
	}
	if err := a.check(w, t, g, dir, tx.Now, true); err != nil || len(a.failed) > 0 {
		return err
	}
	a.drift = integrate.Drift(w.Repo.Git, t.BaseSHA(), a.base)
	if err := landforge.PushPRBranch(w, t.Branch(), a.merged); err != nil {
		return err
	}
	p, err := prov.Open(forge.Request{Branch: t.Branch(), Base: *onto, Head: a.merged,
		Title: t.ID() + ": " + t.Title(), Body: prBody(w, t, a, tx, *onto)})
	if err != nil {
		return landforge.ForgeErr(prov, "open the pull request for "+t.ID(), err)
	}
	if p.Number <= 0 {
		return errs.New(errs.Git, "%s answered the opening of the pull request for %s without its number", prov.Name(), t.ID())
	}
	p.Head = a.merged
	*pr = p
	return nil
}

// prBody is the pull request's description: the task (its QA report
// included) and what the gates said on the commits the request holds.
func prBody(w *workflow.Workflow, t *task.Task, a *approval, tx *workflow.Tx, onto string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task **%s** (%s), opened by `git burl approve` (burl).\n\n", t.ID(), t.Title())
	if onto != w.Config.MainBranch {
		fmt.Fprintf(&b, "Stacked on **%s**: this request targets its branch `%s` and shows only this task's change. Do not merge it there: once %s merged, burl restacks this one onto `%s` and retargets this request to it.\n\n",
			t.Str(task.KeyStackedOn), onto, t.Str(task.KeyStackedOn), w.Config.MainBranch)
	}
	body, _ := task.StripPlaceholders(t.Body())
	r := reviewBody(w, t, a.overridden)
	if e := review.LastEntry(t, "Review: approve"); e != "" && strings.Contains(r, e) {
		// The review has its own section below: its entry in the QA
		// report would say it twice.
		body = strings.Replace(body, e, "", 1)
	}
	if body = strings.TrimSpace(task.WithoutEmptySections(body)); body != "" {
		fmt.Fprintf(&b, "%s\n\n", blankRuns.ReplaceAllString(body, "\n\n"))
	}
	if r != "" {
		fmt.Fprintf(&b, "## Review\n\n%s\n\n", r)
	}
	b.WriteString("## Gate results\n\n")
	b.WriteString(qa.Report(fmt.Sprintf("Gates on %s rebased onto %s", t.Branch(), onto), tx.Now, w.Actor, a.base, a.merged, a.diff, a.runs))
	return b.String()
}

// blankRuns are two blank lines or more, which a removed entry leaves.
var blankRuns = regexp.MustCompile(`\n{3,}`)

// recordPR is the task's frontmatter and event once the pull request is
// open: it stays in QA.
func recordPR(w *workflow.Workflow, tx *workflow.Tx, a *approval, pr forge.PR, onto string) {
	t := tx.Task
	t.SetStr(keyPRURL, pr.URL)
	t.SetInt(keyPRNumber, pr.Number)
	t.SetStr(keyPRHead, pr.Head)
	t.SetTime(keyPROpenedAt, tx.Now)
	said := "opened"
	if pr.WasOpen {
		said = "updated"
		tx.Details["updated"] = true
	}
	if onto != w.Config.MainBranch {
		t.SetStr(keyPRBase, onto)
		tx.Details["onto"] = onto
		said += ", stacked on " + t.Str(task.KeyStackedOn)
	} else if from := t.Str(keyPRBase); from != "" {
		t.SetNull(keyPRBase)
		tx.Details["retargeted_from"] = from
		said += ", retargeted from " + from
	}
	t.AppendToSection("QA Report", qa.Report(fmt.Sprintf("Approved — pull request #%d %s (%s); rebased onto %s at %s", pr.Number, said, pr.URL, onto, gitx.Short(a.base)),
		tx.Now, w.Actor, a.base, a.merged, a.diff, a.runs))
	tx.Details["url"] = pr.URL
	tx.Details["number"] = pr.Number
	tx.Details["head"] = pr.Head
	tx.Details["base"] = a.base
	// The landing record, written when the forge merges, carries them.
	tx.Details[record.KeyGates] = record.GatesOf(w.Config, t, a.runs, "")
}

// PRNumber is a task's open pull request, 0 when it has none.
func PRNumber(t *task.Task) int {
	if t == nil {
		return 0
	}
	return t.Int(keyPRNumber)
}

// QueuePR is a pull request approve --all opened or updated.
type QueuePR struct {
	ID     string `json:"id"`
	Number int    `json:"number"`
	URL    string `json:"url"`
	// Updated: it was open already, and approve --all updated it.
	Updated bool `json:"updated"`
}

// approveAllPR is approve --all with landing: pr: every QA task without
// an open pull request, in queue order, gets one. Each request is based on
// the remote's main alone (the forge merges them one by one, so stacking
// them as the local queue does would put one task's commits in another's
// request), and so each is built on its own.
func approveAllPR(w *workflow.Workflow) (*QueueResult, error) {
	q := &queue{w: w, res: &QueueResult{Approved: []string{}, Rejected: []QueueFailure{}, Opened: []QueuePR{}}}
	pending, err := q.order()
	if err != nil {
		return nil, err
	}
	pending = parentsFirst(w, pending)
	if err := w.CheckConfigInput(); err != nil {
		return nil, err
	}
	if err := trust.Check(w.Repo, append(w.QueueCommands(), w.ForgeCommands()...)...); err != nil {
		return nil, err
	}
	for _, id := range pending {
		e, err := w.Get(id)
		if err != nil || e.Bucket != workflow.QA {
			continue
		}
		if n := PRNumber(e.Task); n > 0 {
			q.res.Lines = append(q.res.Lines, fmt.Sprintf("left %s in QA: its pull request #%d is open (git burl sync settles it; git burl approve %s updates it)", id, n, id))
			continue
		}
		out, err := approve(w, id, byQueue)
		if err != nil {
			q.fail(id, err)
			continue
		}
		q.res.Builds++
		q.res.Opened = append(q.res.Opened, QueuePR{ID: id, Number: out.PR.Number, URL: out.PR.URL, Updated: out.PR.Updated})
		said := "opened"
		if out.PR.Updated {
			said = "updated"
		}
		q.res.Lines = append(q.res.Lines, fmt.Sprintf("%s pull request #%d for %s: %s", said, out.PR.Number, id, out.PR.URL))
	}
	return q.done(), nil
}
