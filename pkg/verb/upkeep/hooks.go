package upkeep

import (
	"fmt"
	"io"
	"os/exec"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/hook"
)

// Hooks is `git burl hooks`: what cmd/git-burl-hooks runs. Only the
// verbs a binary names are linked into it.
func Hooks() cli.Command { return &hooksCmd{} }

type hooksCmd struct {
	cli.JSONFlag
	Force bool `long:"force" description:"With install: chain the current hook even when one chained by an earlier install is still there (that one is kept, no longer run, as <hook>.burl-chained.<n>)"`
}

type hooksOut struct{ *hook.Report }

func (o hooksOut) Human(w io.Writer) { writeHookReport(w, o.Report) }

type hooksStatusOut struct{ *hook.StatusReport }

func (o hooksStatusOut) Human(w io.Writer) {
	fmt.Fprintf(w, "Hooks directory: %s\n", o.Dir)
	for _, s := range o.Hooks {
		var what string
		switch s.State {
		case hook.Installed:
			what = "burl installed"
		case hook.Chained:
			what = fmt.Sprintf("burl installed, chaining the hook it replaced (%s, runs first)", s.Chained)
		case hook.Foreign:
			what = "foreign hook, not managed by burl (git burl hooks install chains it)"
		case hook.Absent:
			what = "absent"
		}
		if s.State != hook.Chained && s.Chained != "" {
			what += fmt.Sprintf("; %s is left from an earlier install", s.Chained)
		}
		fmt.Fprintf(w, "  %-10s  %s\n", s.Name, what)
	}
}

func (c *hooksCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) != 1 {
		return nil, cli.UsageError("hooks", "takes one of install, uninstall, status")
	}
	if c.Force && args[0] != "install" {
		return nil, cli.UsageError("hooks", "takes --force only with install")
	}
	switch args[0] {
	case "install":
		rep, err := hook.Install(ctx.Dir, c.Force)
		if err != nil {
			return nil, err
		}
		warnNotOnPath(ctx)
		return hooksOut{rep}, nil
	case "uninstall":
		rep, err := hook.Uninstall(ctx.Dir)
		if err != nil {
			return nil, err
		}
		return hooksOut{rep}, nil
	case "status":
		rep, err := hook.Inspect(ctx.Dir)
		if err != nil {
			return nil, err
		}
		warnNotOnPath(ctx)
		return hooksStatusOut{rep}, nil
	}
	return nil, cli.UsageError("hooks", "takes one of install, uninstall, status")
}

// warnNotOnPath: the shims skip their checks, with a warning, when git-burl
// cannot be found, so say so where the hooks are set up.
func warnNotOnPath(ctx *cli.Context) {
	if _, err := exec.LookPath("git-burl"); err != nil {
		ctx.Warnf("git-burl is not on PATH, so the installed hooks will skip their checks until it is")
	}
}

// writeHookReport is shared with init --hooks.
func writeHookReport(w io.Writer, rep *hook.Report) {
	fmt.Fprintf(w, "Hooks in %s:\n", rep.Dir)
	for _, a := range rep.Hooks {
		var what string
		switch a.Did {
		case "chained":
			what = fmt.Sprintf("installed; the hook that was there is now %s and still runs first", a.Chained)
		case "restored":
			what = fmt.Sprintf("removed; the hook burl had chained is back (from %s)", a.Chained)
		case "left":
			what = "not burl's: left alone"
		default:
			what = a.Did
			if a.Chained != "" {
				what += fmt.Sprintf(" (runs %s first)", a.Chained)
			}
		}
		if a.Kept != "" {
			what += fmt.Sprintf("; the hook chained before is kept as %s and no longer runs", a.Kept)
		}
		fmt.Fprintf(w, "  %-10s  %s\n", a.Name, what)
	}
}
