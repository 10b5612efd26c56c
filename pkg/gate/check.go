package gate

import (
	"bytes"
	"fmt"
	"io"
	"strings"

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
			if v.Tail != "" {
				lines := strings.Split(v.Tail, "\n")
				out = append(out, fmt.Sprintf("  last %d lines of its output:", len(lines)))
				for _, l := range lines {
					out = append(out, "  | "+l)
				}
			}
		}
	}
	return out
}

// Diff is the one `git diff -U0 -M` both gates read: rangeArgs is what
// follows `git diff` ("base..head", or "--cached" for the index against
// HEAD). A huge change costs what git diff itself costs, and a hook pays
// for one git process.
type Diff struct {
	proc  *gitx.Proc
	ahead []byte     // output read before Check
	done  chan error // the read-ahead's end: nil, io.EOF when git is done
}

// readAhead bounds the output StartDiff holds while nobody reads it: a
// commit's diff usually fits whole, so git can finish meanwhile; a huge
// one waits on the pipe for Check.
const readAhead = 256 << 10

// StartDiff starts the diff before the caller knows the scope and the stub
// patterns, and reads ahead of Check in the background: the commit-msg
// hook, which every task commit waits for, runs git diff while it reads
// the workflow.
func StartDiff(g gitx.Git, rangeArgs ...string) (*Diff, error) {
	d, err := startDiff(g, rangeArgs)
	if err != nil {
		return nil, err
	}
	d.done = make(chan error, 1)
	go func() {
		buf := make([]byte, readAhead)
		n, err := io.ReadFull(d.proc.Stdout(), buf)
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		d.ahead = buf[:n]
		d.done <- err
	}()
	return d, nil
}

func startDiff(g gitx.Git, rangeArgs []string) (*Diff, error) {
	// The gates read every change as text, whatever the tree says: a
	// .gitattributes in the change itself (`*.py -diff`, a textconv or an
	// external driver) or one NUL byte would otherwise turn added lines
	// into "Binary files differ" and hide them from the stub scan.
	args := append([]string{"-c", "core.quotePath=true", "diff", "--no-color", "--no-ext-diff", "--no-relative", "-M",
		"-U0", "--text", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"}, rangeArgs...)
	p, err := g.Start(args...)
	if err != nil {
		return nil, err
	}
	return &Diff{proc: p}, nil
}

// Check runs the scope and stub gates over the diff and waits for git.
func (d *Diff) Check(scope Scope, stubs *StubScanner) (Violations, error) {
	if stubs == nil {
		stubs = &StubScanner{}
	}
	r := d.proc.Stdout()
	if d.done != nil {
		switch err := <-d.done; err {
		case nil:
			r = io.MultiReader(bytes.NewReader(d.ahead), r)
		case io.EOF:
			r = bytes.NewReader(d.ahead)
		default:
			d.proc.Kill()
			return nil, err
		}
	}
	stubV, changes, serr := stubs.ScanDiff(r)
	if err := d.proc.Wait(); err != nil {
		return nil, err
	}
	if serr != nil {
		return nil, serr
	}
	out := Violations(CheckScope(scope, changes))
	return append(out, stubV...), nil
}

// Abandon stops the diff when it is not needed after all.
func (d *Diff) Abandon() {
	if d.done != nil {
		<-d.done
	}
	d.proc.Kill()
}

// CheckDiff is StartDiff and Check for a caller that has the scope and the
// stub patterns at hand: it reads git's output as it comes.
func CheckDiff(g gitx.Git, rangeArgs []string, scope Scope, stubs *StubScanner) (Violations, error) {
	d, err := startDiff(g, rangeArgs)
	if err != nil {
		return nil, err
	}
	return d.Check(scope, stubs)
}
