package gate

import (
	"fmt"
	"io"

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
// HEAD). One streamed `git diff -U0 -M` feeds both gates, so a huge change
// costs what git diff itself costs, and a hook pays for one git process.
func CheckDiff(g gitx.Git, rangeArgs []string, scope Scope, stubs *StubScanner) (Violations, error) {
	if stubs == nil {
		stubs = &StubScanner{}
	}
	var (
		changes []Change
		stubV   []Violation
	)
	args := append([]string{"-c", "core.quotePath=true", "diff", "--no-color", "--no-ext-diff", "--no-relative", "-M",
		"-U0", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"}, rangeArgs...)
	err := g.Stream(func(r io.Reader) error {
		var err error
		stubV, changes, err = stubs.ScanDiff(r)
		return err
	}, args...)
	if err != nil {
		return nil, err
	}
	out := Violations(CheckScope(scope, changes))
	return append(out, stubV...), nil
}
