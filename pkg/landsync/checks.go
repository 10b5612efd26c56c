package landsync

// The forge's checks as a gate on pull requests (DESIGN §21): a settle
// round reads the checks on each open request's gated head, asks the forge
// to merge once they passed (pr_merge: auto, where the merge was not asked
// at opening), and sends the task back with what failed, BLOCKED after
// ci_max_rounds. Pending never passes; a head that waited ci_timeout fails
// with the checks it still waits for, named.

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/land"
	"github.com/burl-dev/burl/pkg/landforge"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Frontmatter of a task whose checks gate it.
const keyPROpenedAt = task.KeyPROpenedAt

// ciReadersAtOnce bounds the checks read at once in a round: a forge
// without a listing of every head's checks (Gitea) is asked per head, and
// the reads overlap where the forge answers several at once (a Gitea on
// SQLite answers them one after the other: see contrib/bench/RESULTS.md).
const ciReadersAtOnce = 8

// checkRun is one head whose checks a round reads.
type checkRun struct {
	i      int // index in the round's report
	e      workflow.Entry
	target forge.Target
	checks []forge.Check
	err    error
}

// gateChecks is the checks part of a settle round: for every request in
// rep that is open at the head approve passed, read its checks (at most
// ciReadersAtOnce at once) and act on them. n counts the requests.
func gateChecks(w *workflow.Workflow, p forge.Provider, rep *SettleReport, entries map[string]workflow.Entry, listed map[int]forge.PR, st *forgeState, n *int) {
	chk, err := forge.CheckerOf(p)
	if err != nil {
		fmt.Fprintf(w.Stderr, "burl: %v\n", err)
		return
	}
	var todo []*checkRun
	for i, s := range rep.PRs {
		e, ok := entries[s.Task]
		pr, open := listed[s.Number]
		if !ok || e.Task == nil || !open || s.Result != "open" {
			continue
		}
		head := e.Task.Str(keyPRHead)
		key := strconv.Itoa(s.Number)
		if head == "" || pr.Head != head {
			continue
		}
		if st.CIPassed[key] == head {
			rep.PRs[i].Checks, st.Checks[key] = "success", "success"
			continue
		}
		todo = append(todo, &checkRun{i: i, e: e, target: forge.Target{Number: s.Number, Branch: e.Task.Branch(), Head: head, Base: w.Config.MainBranch}})
	}
	// A head's checks stamp comes with the listing (GitHub), else from one
	// request for every head's (GitLab), asked only when a head waits.
	stamps := map[string]string{}
	if sp, ok := p.(forge.Stamper); ok && len(todo) > 0 {
		*n++
		if stamps, err = sp.CheckStamps(); err != nil {
			fmt.Fprintf(w.Stderr, "burl: %s: cannot list the checks' stamps (each head is read): %v\n", p.Name(), err)
		}
	}
	stampOf := func(pr forge.PR) string {
		if pr.ChecksStamp != "" {
			return pr.ChecksStamp
		}
		return stamps[pr.Head]
	}
	var runs []*checkRun
	for _, r := range todo {
		s := &rep.PRs[r.i]
		key := strconv.Itoa(s.Number)
		if stamp := stampOf(listed[s.Number]); stamp != "" && st.CIPending[key] == r.target.Head+" "+stamp {
			// Nothing moved on this head since a round found it pending.
			s.Checks, st.Checks[key] = "pending", "pending"
			timeoutOnly(w, s, r.e, st, nil)
			continue
		}
		runs = append(runs, r)
	}
	var count int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, ciReadersAtOnce)
	for _, r := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func(r *checkRun) {
			defer func() { <-sem; wg.Done() }()
			atomic.AddInt64(&count, 1)
			r.checks, r.err = chk.Checks(r.target, w.Config.CI.Checks == "required")
		}(r)
	}
	wg.Wait()
	*n += int(count)
	for _, r := range runs {
		s := &rep.PRs[r.i]
		key := strconv.Itoa(s.Number)
		if r.err != nil {
			if _, ok := r.err.(*forge.RateLimited); ok {
				return
			}
			fmt.Fprintf(w.Stderr, "burl: %s: cannot read the checks of pull request #%d: %v\n", s.Task, s.Number, r.err)
			timeoutOnly(w, s, r.e, st, r.err)
			continue
		}
		v, jerr := forge.Judge(r.checks, w.Config.CI.Checks == "required")
		if jerr != nil {
			fmt.Fprintf(w.Stderr, "burl: %s: pull request #%d: %v\n", s.Task, s.Number, jerr)
		}
		switch {
		case jerr == nil && v.State == forge.CheckSuccess:
			s.Checks = "success"
			st.Checks[key] = s.Checks
			delete(st.CIPending, key)
			if onParent(w, r.e.Task) {
				// Never merged into its parent's branch; its head changes
				// when it is retargeted, and is judged again then.
				continue
			}
			if w.Config.PRMerge != "auto" || landforge.AskMergeAtOpen(w, p) {
				st.CIPassed[key] = r.target.Head
				continue
			}
			if err := forge.MergePassed(p, forge.PR{Number: s.Number, URL: s.URL, Branch: r.target.Branch, Head: r.target.Head, KeepBranch: w.Config.Stack}, w.Config.PRMergeStyle); err != nil {
				fmt.Fprintf(w.Stderr, "burl: %s: the checks of pull request #%d passed, but %s did not take the request to merge it: %v\n", s.Task, s.Number, p.Name(), err)
				continue
			}
			*n++
			st.CIPassed[key] = r.target.Head
			s.Reason = "checks passed; asked " + p.Name() + " to merge it"
		case jerr == nil && v.State == forge.CheckFailure:
			s.Checks = "failure"
			s.Result = "checks_failed"
			s.Failed = landforge.FailedChecks(w, chk, r.target, r.e, v.Failed, n)
			s.Reason = fmt.Sprintf("checks failed on pull request #%d at %s: %s", s.Number, gitx.Short(r.target.Head), forge.Names(v.Failed))
		default:
			s.Checks = "pending"
			if names := forge.Names(v.Pending); names != "" {
				s.Reason = "waiting for " + names
			}
			st.Checks[key] = s.Checks
			if stamp := stampOf(listed[s.Number]); stamp != "" && jerr == nil {
				st.CIPending[key] = r.target.Head + " " + stamp
			}
			timeoutOnly(w, s, r.e, st, jerr, v.Pending...)
		}
	}
}

// timeoutOnly fails a head that waited ci_timeout for its checks: the
// pending ones (or, when the forge's answer was not understood, why) are
// what failed, named.
func timeoutOnly(w *workflow.Workflow, s *land.Settled, e workflow.Entry, st *forgeState, why error, pending ...forge.Check) {
	since := waitingSince(e.Task, st, strconv.Itoa(s.Number))
	if since.IsZero() || time.Since(since) < w.Config.CI.Timeout {
		return
	}
	s.Checks, s.Result = "failure", "checks_failed"
	s.Failed = landforge.TimedOut(w, pending, why)
	s.Reason = fmt.Sprintf("checks timed out on pull request #%d at %s after ci_timeout (%s): %s", s.Number, gitx.Short(e.Task.Str(keyPRHead)), w.Config.CI.Timeout, landforge.FailedNames(s.Failed))
}

// waitingSince is when the gated head started waiting for its checks: the
// pull request's opening at it, or for a request opened by an older burl,
// when this clone first saw it waiting.
func waitingSince(t *task.Task, st *forgeState, key string) time.Time {
	head := t.Str(keyPRHead)
	if at, err := time.Parse(time.RFC3339, t.Str(keyPROpenedAt)); err == nil {
		return at
	}
	if v, ok := st.CISince[key]; ok {
		if h, at, _ := strings.Cut(v, " "); h == head {
			if t, err := time.Parse(time.RFC3339, at); err == nil {
				return t
			}
		}
	}
	st.CISince[key] = head + " " + time.Now().UTC().Format(time.RFC3339)
	return time.Time{}
}

// checksFailed is the transition of a task whose checks failed on its
// pull request: back to READY with what failed (a QA rejection), or
// BLOCKED for a human once ci_max_rounds rounds failed.
func checksFailed(w *workflow.Workflow, s land.Settled) workflow.Transition {
	return workflow.Transition{Verb: "checks_failed", To: workflow.Ready, Apply: func(tx *workflow.Tx) error {
		qa.Reject(w, tx, s.Reason, landforge.ChecksReport(s.Failed))
		landforge.CIRound(w, tx, "pr", landforge.FailedNames(s.Failed))
		for _, k := range []string{keyPRURL, keyPRNumber, keyPRHead, keyPROpenedAt} {
			tx.Task.SetNull(k)
		}
		tx.Details["number"] = s.Number
		tx.Details["url"] = s.URL
		tx.Details["checks"] = s.Failed
		return nil
	}}
}
