package upkeep

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/doctor"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Doctor is `git burl doctor`: what cmd/git-burl-doctor runs. Only the
// verbs a binary names are linked into it.
func Doctor() cli.Command { return &doctorCmd{} }

type doctorCmd struct {
	cli.JSONFlag
	Repair bool `long:"repair" description:"Apply the safe repairs (needs --force): clear dead locks, finish interrupted moves, recreate missing worktrees, commit leftovers"`
	Force  bool `long:"force" description:"Confirm --repair"`
}

// doctorOut is the check's result; exit 2 when it found problems.
type doctorOut struct {
	Healthy   bool               `json:"healthy"`
	Findings  []doctor.Finding   `json:"findings"`
	Elsewhere []doctor.Elsewhere `json:"elsewhere,omitempty"`
	tasks     int
}

func (o doctorOut) ExitCode() int {
	if o.Healthy {
		return 0
	}
	return 2
}

func (o doctorOut) Human(w io.Writer) {
	for _, e := range o.Elsewhere {
		fmt.Fprintf(w, "%s is claimed in another clone, %s: its branch lives there\n", e.Task, e.Clone)
	}
	if o.Healthy {
		fmt.Fprintf(w, "✓ The workflow is healthy (%d task(s) checked)\n", o.tasks)
		return
	}
	fmt.Fprintf(w, "❌ %d problem(s) found\n", len(o.Findings))
	printFindings(w, o.Findings)
	n := 0
	for _, f := range o.Findings {
		if f.Repairable {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(w, "\n%d of them git burl doctor --repair --force repairs; it touches nothing a running command holds\n", n)
	}
}

func printFindings(w io.Writer, fs []doctor.Finding) {
	for _, f := range fs {
		fmt.Fprintf(w, "\n%s  %s\n", f.Kind, f.Path)
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(f.Message, "\n", "\n  "))
		fmt.Fprintf(w, "  fix: %s\n", f.Fix)
	}
}

// doctorRepairOut is --repair's result: what it did and what is left.
type doctorRepairOut struct {
	doctorOut
	Repaired []doctor.Repaired `json:"repaired"`
	Failed   []doctor.Failed   `json:"failed"`
}

func (o doctorRepairOut) Human(w io.Writer) {
	if len(o.Repaired) == 0 && len(o.Failed) == 0 {
		fmt.Fprintln(w, "Nothing to repair.")
	}
	for _, r := range o.Repaired {
		fmt.Fprintf(w, "✓ %s: %s\n", r.Kind, r.Action)
	}
	for _, f := range o.Failed {
		fmt.Fprintf(w, "✗ %s %s: repair failed: %s\n", f.Kind, f.Path, f.Error)
	}
	if o.Healthy {
		fmt.Fprintln(w, "✓ The workflow is healthy now")
		return
	}
	fmt.Fprintf(w, "\n❌ %d problem(s) left that need you:\n", len(o.Findings))
	printFindings(w, o.Findings)
}

func (c *doctorCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, cli.UsageError("doctor", "takes no arguments")
	}
	if c.Force && !c.Repair {
		return nil, cli.UsageError("doctor", "--force only confirms --repair")
	}
	w, err := verb.Open(ctx)
	var link *workflow.SymlinkError
	if errors.As(err, &link) {
		// Nothing else can be checked safely, and nothing is repaired:
		// what the link points at is not burl's to touch.
		var e *errs.Error
		errors.As(err, &e)
		return doctorOut{Findings: []doctor.Finding{{Kind: doctor.Symlink, Path: link.Path,
			Message: link.Error() + ": a link committed on the workflow branch could send task files, locks or caches outside the repository",
			Fix:     e.Fix}}}, nil
	}
	if err != nil {
		return nil, err
	}
	if !c.Repair {
		// A transition in flight looks like an interrupted one, so the check
		// queues behind a live holder of the workflow lock to see settled
		// state; it changes nothing itself. An abandoned workflow lock is a
		// finding of its own, and then there is nothing to wait for.
		if st, err := w.Locks.Stat(lock.Workflow); err != nil || !(st.Dead || st.Stale || st.Unreadable) {
			if l, err := w.LockWorkflow("doctor"); err == nil {
				defer l.Release()
			} else {
				ctx.Warnf("checking while another command holds the workflow lock: what it is changing may show up below")
			}
		}
		rep, err := doctor.Check(w)
		if err != nil {
			return nil, err
		}
		return doctorOut{Healthy: rep.Healthy(), Findings: rep.Findings, Elsewhere: rep.Elsewhere, tasks: rep.Tasks}, nil
	}
	if !c.Force {
		rep, err := doctor.Check(w)
		if err != nil {
			return nil, err
		}
		var would []string
		for _, f := range rep.Findings {
			if f.Repairable {
				would = append(would, fmt.Sprintf("  %s %s: %s", f.Kind, f.Path, f.Message))
			}
		}
		reason := "doctor --repair changes the workflow and needs --force"
		if len(would) > 0 {
			reason += "; it would apply:\n" + strings.Join(would, "\n")
		} else {
			reason += "; nothing is repairable now"
		}
		return nil, errs.New(errs.User, "%s", reason).WithTitle("Refusing to repair without --force").
			WithFix("git burl doctor --repair --force")
	}
	res, err := doctor.Repair(w)
	if err != nil {
		return nil, err
	}
	left := res.Remaining
	return doctorRepairOut{doctorOut: doctorOut{Healthy: left.Healthy(), Findings: left.Findings, Elsewhere: left.Elsewhere, tasks: left.Tasks},
		Repaired: res.Repaired, Failed: res.Failed}, nil
}
