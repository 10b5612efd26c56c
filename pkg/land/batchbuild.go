package land

import (
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/qa"
)

// build runs build_command on the top of a stack, in its worktree, and
// with queue_ci: forge then waits for the forge's checks on it: the runs
// that ran, the one that decides last (the landing record names both).
func (q *queue) build(s *stacked) []gate.RunResult {
	var built []gate.RunResult
	if strings.TrimSpace(q.w.Config.BuildCommand) != "" {
		runs, _, err := qa.Run(q.w, s.e.Task, s.dir, time.Now().UTC(), "build")
		if err != nil {
			// Cannot start the command: as good as a failed build, with why.
			return []gate.RunResult{{Name: "build", Command: q.w.Config.BuildCommand, ExitCode: -1, Tail: []string{err.Error()}}}
		}
		q.res.Builds++
		if !runs[0].OK() || q.ci == nil {
			return runs[:1]
		}
		built = runs[:1]
	}
	return append(built, q.forgeChecks(s))
}

// passed: the last of runs passed, and with it the build.
func passed(runs []gate.RunResult) bool { return runs[len(runs)-1].OK() }

// bisect builds the top of the stack; when that fails it halves the stack
// until the first task whose prefix breaks the build is found. good is the
// prefix that built (main itself is taken as building), culprit the
// breaking task, after the tasks stacked on it, to be staged again.
func (q *queue) bisect(stack []*stacked, build func(*stacked) []gate.RunResult) (good []*stacked, culprit *stacked, after []*stacked) {
	if len(stack) == 0 || (strings.TrimSpace(q.w.Config.BuildCommand) == "" && q.ci == nil) {
		return stack, nil, nil
	}
	n := len(stack)
	top := build(stack[n-1])
	if passed(top) {
		for _, s := range stack {
			s.a.runs = append(s.a.runs, top...)
			s.a.builtOn = stack[n-1].a.merged
		}
		return stack, nil, nil
	}
	// The prefix of lo tasks builds, the prefix of hi tasks does not.
	lo, hi, fail := 0, n, top
	var pass []gate.RunResult
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if r := build(stack[mid-1]); passed(r) {
			lo, pass = mid, r
		} else {
			hi, fail = mid, r
		}
	}
	for _, s := range stack[:lo] {
		if pass != nil {
			s.a.runs = append(s.a.runs, pass...)
			s.a.builtOn = stack[lo-1].a.merged
		}
	}
	c := stack[hi-1]
	c.a.runs = append(c.a.runs, fail...)
	return stack[:lo], c, stack[hi:]
}
