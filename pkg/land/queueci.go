package land

// The merge queue waits on the forge's CI too (queue_ci: forge, DESIGN
// §21): a batch candidate, once build_command passed on it, is pushed to
// burl/queue/<n> on the remote and its checks are awaited there; a red
// candidate is bisected as a failed build is, and main moves only to a
// candidate whose checks passed. The candidate branches are deleted in
// one push when the queue ends (one push less per candidate while it runs).

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/workflow"
)

// queueBranch is the remote branch a candidate whose top is task id is
// pushed to: burl/queue/<its number>.
func queueBranch(id string) string {
	return "burl/queue/" + strings.TrimLeft(strings.TrimPrefix(id, "TASK-"), "0")
}

// ciPoll bounds the wait between two reads of a candidate's checks: short
// at first (a quick CI answers within seconds), half as long again after
// each read, up to ciPollMax (a CI of half an hour is asked ~400 times).
const (
	ciPollFirst = 250 * time.Millisecond
	ciPollMax   = 5 * time.Second
)

// forgeChecks pushes the candidate s (its rebased top) and waits for its
// checks: the result reads as a build's (name "checks"), so the queue's
// bisection and reports take it as one.
func (q *queue) forgeChecks(s *stacked) (r gate.RunResult) {
	w := q.w
	branch := queueBranch(s.e.ID)
	r = gate.RunResult{Name: "checks", Command: fmt.Sprintf("the forge's checks on %s (checks: %s)", branch, w.Config.CI.Checks)}
	start := time.Now()
	defer func() { r.Duration = time.Since(start); r.Seconds = r.Duration.Seconds() }()
	fail := func(lines ...string) gate.RunResult {
		r.ExitCode, r.Tail = 1, lines
		return r
	}
	g, remote := w.Repo.Git, w.Config.Remote
	if _, err := g.Run("push", "-q", "--force", remote, s.a.merged+":refs/heads/"+branch); err != nil {
		return fail(fmt.Sprintf("cannot push the candidate to %s on %s: %v", branch, remote, err))
	}
	if !slices.Contains(q.candidates, branch) {
		q.candidates = append(q.candidates, branch)
	}
	target := forge.Target{Branch: branch, Head: s.a.merged, Base: w.Config.MainBranch}
	required := w.Config.CI.Checks == "required"
	delay := ciPollFirst
	var pending []forge.Check
	var why error
	for {
		cs, err := q.ci.Checks(target, required)
		var v forge.Verdict
		if err == nil {
			v, err = forge.Judge(cs, required)
		}
		why = err
		switch {
		case err == nil && v.State == forge.CheckSuccess:
			r.Tail = []string{"passed: " + forge.Names(v.Passed)}
			return r
		case err == nil && v.State == forge.CheckFailure:
			s.failedChecks = forge.Names(v.Failed)
			return fail(strings.Split(strings.Join(checksReport(failedChecks(w, q.ci, target, workflow.Entry{ID: s.e.ID}, v.Failed, new(int))), "\n"), "\n")...)
		}
		pending = v.Pending
		if time.Since(start) >= w.Config.CI.Timeout || osx.Interrupted() {
			break
		}
		time.Sleep(delay)
		if delay += delay / 2; delay > ciPollMax {
			delay = ciPollMax
		}
	}
	r.TimedOut = true
	fs := timedOut(w, pending, why)
	s.failedChecks = failedNames(fs)
	return fail(checksReport(fs)...)
}

// removeCandidates deletes the candidate branches the queue pushed, in one
// push.
func (q *queue) removeCandidates() {
	if len(q.candidates) == 0 {
		return
	}
	w := q.w
	args := append([]string{"push", "-q", w.Config.Remote, "--delete"}, q.candidates...)
	if _, err := w.Repo.Git.Run(args...); err != nil {
		fmt.Fprintf(w.Stderr, "burl: warning: could not delete the queue's candidate branches %s on %s: %v\n", strings.Join(q.candidates, ", "), w.Config.Remote, err)
	}
	q.candidates = nil
}
