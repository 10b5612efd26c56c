package landforge

// The merge queue waits on the forge's CI too (queue_ci: forge, DESIGN
// §21): a batch candidate, once build_command passed on it, is pushed to
// burl/queue/<n> on the remote and its checks are awaited there; a red
// candidate is bisected as a failed build is, and main moves only to a
// candidate whose checks passed. The candidate branches are deleted in
// one push when the queue ends (one push less per candidate while it runs).

import (
	"fmt"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/workflow"
)

// QueueBranch is the remote branch a candidate whose top is task id is
// pushed to: burl/queue/<its number>.
func QueueBranch(id string) string {
	return "burl/queue/" + strings.TrimLeft(strings.TrimPrefix(id, "TASK-"), "0")
}

// ciPoll bounds the wait between two reads of a candidate's checks: short
// at first (a quick CI answers within seconds), half as long again after
// each read, up to ciPollMax (a CI of half an hour is asked ~400 times).
const (
	ciPollFirst = 250 * time.Millisecond
	ciPollMax   = 5 * time.Second
)

// QueueChecker is the forge's checks reader queue_ci: forge waits on.
func QueueChecker(w *workflow.Workflow) (forge.Checker, error) {
	p, err := ForgeFor(w)
	if err != nil {
		return nil, err
	}
	ci, err := forge.CheckerOf(p)
	if err != nil {
		return nil, errs.Wrap(err, errs.User, "").WithFix("set queue_ci: none in .burl/.workflow/config.yaml, and commit it")
	}
	return ci, nil
}

// CandidateChecks pushes head, task id's rebased top, to burl/queue/<n>
// and waits for the forge's checks on it: the run (named "checks"), the
// names of the checks that failed, and whether the branch was pushed (and
// so is to be deleted).
func CandidateChecks(w *workflow.Workflow, ci forge.Checker, id, head string) (r gate.RunResult, failed string, pushed bool) {
	branch := QueueBranch(id)
	r = gate.RunResult{Name: "checks", Command: fmt.Sprintf("the forge's checks on %s (checks: %s)", branch, w.Config.CI.Checks)}
	start := time.Now()
	defer func() { r.Duration = time.Since(start); r.Seconds = r.Duration.Seconds() }()
	fail := func(lines ...string) gate.RunResult {
		r.ExitCode, r.Tail = 1, lines
		return r
	}
	g, remote := w.Repo.Git, w.Config.Remote
	if _, err := g.Run("push", "-q", "--force", remote, head+":refs/heads/"+branch); err != nil {
		return fail(fmt.Sprintf("cannot push the candidate to %s on %s: %v", branch, remote, err)), "", false
	}
	target := forge.Target{Branch: branch, Head: head, Base: w.Config.MainBranch}
	required := w.Config.CI.Checks == "required"
	delay := ciPollFirst
	var pending []forge.Check
	var why error
	for {
		cs, err := ci.Checks(target, required)
		var v forge.Verdict
		if err == nil {
			v, err = forge.Judge(cs, required)
		}
		why = err
		switch {
		case err == nil && v.State == forge.CheckSuccess:
			r.Tail = []string{"passed: " + forge.Names(v.Passed)}
			return r, "", true
		case err == nil && v.State == forge.CheckFailure:
			lines := strings.Split(strings.Join(ChecksReport(FailedChecks(w, ci, target, workflow.Entry{ID: id}, v.Failed, new(int))), "\n"), "\n")
			return fail(lines...), forge.Names(v.Failed), true
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
	fs := TimedOut(w, pending, why)
	return fail(ChecksReport(fs)...), FailedNames(fs), true
}

// DeleteCandidates deletes candidate branches on the remote, in one push.
func DeleteCandidates(w *workflow.Workflow, branches []string) {
	if len(branches) == 0 {
		return
	}
	args := append([]string{"push", "-q", w.Config.Remote, "--delete"}, branches...)
	if _, err := w.Repo.Git.Run(args...); err != nil {
		fmt.Fprintf(w.Stderr, "burl: warning: could not delete the queue's candidate branches %s on %s: %v\n", strings.Join(branches, ", "), w.Config.Remote, err)
	}
}
