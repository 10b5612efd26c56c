package gates

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/record"
	"github.com/burl-dev/burl/pkg/repo"
)

// Verify is `git burl verify`: what cmd/git-burl-verify runs. Only the
// verbs a binary names are linked into it.
func Verify() cli.Command { return &verifyCmd{} }

type verifyCmd struct {
	cli.JSONFlag
	Allow  []string `long:"allow" value-name:"REV" description:"Accept this commit whatever it is (repeatable): a named exception"`
	Signed bool     `long:"signed" description:"Also require good signatures on the landing records' notes commits and the workflow branch's landing commits"`
}

type verifyOut struct {
	*record.Report
}

// ExitCode: 2 unless every commit is landed by burl or allowed.
func (o verifyOut) ExitCode() int {
	if o.Verified {
		return 0
	}
	return 2
}

func (o verifyOut) Human(out io.Writer) {
	// A line a commit, ten thousand of them: one write per 64 KiB.
	w := bufio.NewWriterSize(out, 64<<10)
	defer w.Flush()
	for _, c := range o.Commits {
		mark := map[string]string{record.Landed: "✓", record.NotLanded: "✗", record.Mismatch: "!"}[c.Status]
		line := fmt.Sprintf("%s %s ", mark, gitx.Short(c.Commit))
		switch {
		case c.Status == record.Landed:
			line += fmt.Sprintf("%s %s — %s; gates %s", c.Task, cli.Escape(c.Title), c.Landing, strings.Join(c.Gates, ", "))
			if c.Agent != "" {
				line += "; agent " + cli.Escape(c.Agent)
				if c.Model != "" {
					line += " (" + cli.Escape(c.Model) + ")"
				}
			}
			line += "; approved by " + cli.Escape(c.ApprovedBy)
		case c.Task != "":
			line += fmt.Sprintf("%s: %s", c.Task, cli.Escape(c.Reason))
		default:
			line += fmt.Sprintf("%q: %s", cli.Escape(c.Subject), cli.Escape(c.Reason))
		}
		if c.Allowed {
			line += " (allowed)"
		}
		fmt.Fprintln(w, line)
	}
	rng := gitx.Short(o.To)
	if o.From != "" {
		rng = gitx.Short(o.From) + ".." + rng
	}
	n := o.Counts
	fmt.Fprintf(w, "%d commit(s) of %s (%s): %d landed by burl, %d not landed by burl, %d whose record does not match", len(o.Commits), o.MainBranch, rng, n.Landed, n.NotLanded, n.Mismatch)
	if n.Allowed > 0 {
		fmt.Fprintf(w, ", %d allowed", n.Allowed)
	}
	fmt.Fprintln(w)
	if s := o.Signatures; s != nil {
		fmt.Fprintf(w, "signatures: %d commit(s) checked, %d without a good one\n", s.Checked, len(s.Bad))
		for _, b := range s.Bad {
			fmt.Fprintf(w, "  %s %s %q: %%G? %s\n", b.Ref, gitx.Short(b.Commit), cli.Escape(b.Subject), b.Status)
		}
	}
	if !o.Verified && n.NotLanded+n.Mismatch > n.Allowed {
		fmt.Fprintln(w, "not verified: a commit burl did not land can be accepted by name (git burl verify --allow REV); a record that does not match needs a human to look at that commit")
	}
}

// verifyMemoryLimit replaces the soft limit every command runs under, and
// verifyGCPercent the collector's pace: verify holds what it checks of
// every commit in its range (10,000 landed commits: ~15 MiB live) and
// decodes a record per commit; under 20 MiB the collector ran back to back
// and doubled its time, and at its usual pace it still took a sixth (peak
// RSS at 10,000 commits: ~70 MiB). It is a check for reviewers and CI, not
// a step of an agent's loop.
const (
	verifyMemoryLimit = 256 << 20
	verifyGCPercent   = 400
)

func (c *verifyCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 1 {
		return nil, cli.UsageError("verify", "takes one range at most")
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(verifyMemoryLimit)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(verifyGCPercent)
	}
	r, err := repo.Resolve(ctx.Dir)
	if err != nil {
		return nil, err
	}
	o := record.Options{Allow: c.Allow, Signed: c.Signed}
	if len(args) == 1 {
		o.Range = args[0]
	}
	rep, err := record.Verify(r, o)
	if err != nil {
		return nil, err
	}
	return verifyOut{rep}, nil
}
