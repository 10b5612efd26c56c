package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/conflict"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/verb"
)

// Conflicts is `git burl conflicts`: what cmd/git-burl-conflicts runs.
func Conflicts() cli.Command { return &conflictsCmd{} }

type conflictsCmd struct {
	cli.JSONFlag
}

type conflictsOut struct {
	Conflicts []conflict.Pair `json:"conflicts"`
	checked   int
	main      string
	mainSHA   string
}

// ExitCode: 2 when a conflict is predicted, as a gate failure is.
func (o conflictsOut) ExitCode() int {
	if len(o.Conflicts) > 0 {
		return 2
	}
	return 0
}

func (o conflictsOut) Human(w io.Writer) {
	if len(o.Conflicts) == 0 {
		fmt.Fprintf(w, "No conflict predicted among %d in-flight task(s) and %s (%s)\n", o.checked, o.main, gitx.Short(o.mainSHA))
		return
	}
	fmt.Fprintf(w, "%d conflict(s) predicted among %d in-flight task(s) and %s (%s):\n", len(o.Conflicts), o.checked, o.main, gitx.Short(o.mainSHA))
	for _, p := range o.Conflicts {
		b := p.B
		if b == conflict.Main {
			b = o.main
		}
		fmt.Fprintf(w, "  %s × %s: %s\n", p.A, b, cli.Escape(strings.Join(p.Files, ", ")))
	}
	fmt.Fprintf(w, "next: the later one rebases onto the earlier once it lands (git burl approve lands in queue order)\n")
}

func (c *conflictsCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, cli.UsageError("conflicts", "takes no arguments")
	}
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	mainSHA, tips, err := conflict.InFlight(w)
	if err != nil {
		return nil, err
	}
	pairs, err := conflict.Predict(w.Repo.Git, mainSHA, tips)
	if err != nil {
		return nil, err
	}
	if pairs == nil {
		pairs = []conflict.Pair{}
	}
	return conflictsOut{Conflicts: pairs, checked: len(tips), main: w.Config.MainBranch, mainSHA: mainSHA}, nil
}
