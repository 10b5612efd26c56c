package gate

import (
	"fmt"
	"io"
	"sync"

	"github.com/burl-dev/burl/pkg/gitx"
)

// Violations renders itself for the CLI (PRD 16's layout).
type Violations []Violation

// HumanLines is one line per violation.
func (vs Violations) HumanLines() []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		switch v.Gate {
		case "stub":
			out = append(out, fmt.Sprintf("%s:%d  + %s   (%s)", v.File, v.Line, v.Text, v.Rule))
		case "scope":
			out = append(out, "✗ "+v.Message)
		default:
			out = append(out, v.Message)
		}
	}
	return out
}

// CheckDiff runs the scope and stub gates over one diff: rangeArgs is what
// follows `git diff` ("base..head", or "--cached" for the index against
// HEAD). The two git processes run concurrently and both outputs are
// streamed, so a huge change costs what git diff itself costs.
func CheckDiff(g gitx.Git, rangeArgs []string, scope Scope, stubs *StubScanner) (Violations, error) {
	var (
		wg                sync.WaitGroup
		changes           []Change
		stubV             []Violation
		scopeErr, stubErr error
	)
	common := []string{"-c", "core.quotePath=true", "diff", "--no-color", "--no-ext-diff", "--no-relative", "-M"}
	wg.Add(1)
	go func() {
		defer wg.Done()
		args := append(append(append([]string{}, common...), "--name-status", "-z"), rangeArgs...)
		scopeErr = g.Stream(func(r io.Reader) error {
			var err error
			changes, err = ParseNameStatus(r)
			return err
		}, args...)
	}()
	if stubs != nil {
		args := append(append(append([]string{}, common...), "-U0", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"), rangeArgs...)
		stubErr = g.Stream(func(r io.Reader) error {
			var err error
			stubV, err = stubs.Scan(r)
			return err
		}, args...)
	}
	wg.Wait()
	if scopeErr != nil {
		return nil, scopeErr
	}
	if stubErr != nil {
		return nil, stubErr
	}
	out := Violations(CheckScope(scope, changes))
	return append(out, stubV...), nil
}
