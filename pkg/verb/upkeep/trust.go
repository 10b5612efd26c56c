package upkeep

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mattn/go-isatty"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Trust is `git burl trust`: what cmd/git-burl-trust runs. Only the verbs
// a binary names are linked into it.
func Trust() cli.Command { return &trustCmd{} }

type trustCmd struct {
	cli.JSONFlag
	Yes bool `long:"yes" short:"y" description:"Trust every listed command without asking (CI)"`
}

// trustEntry is one command that was not trusted when trust ran.
type trustEntry struct {
	trust.Pending
	Where   string `json:"where"`
	Trusted bool   `json:"trusted"` // trusted by this run
}

type trustOut struct {
	Repository string       `json:"repository"`
	Store      string       `json:"store"`
	Total      int          `json:"total"` // commands the workflow holds
	Commands   []trustEntry `json:"commands"`
	w          *workflow.Workflow
	asked      bool // the answers were given on the terminal already
}

func (o trustOut) Human(w io.Writer) {
	if len(o.Commands) == 0 {
		fmt.Fprintf(w, "All %d command(s) of the workflow are trusted on this machine.\n", o.Total)
		return
	}
	n := 0
	for _, c := range o.Commands {
		if c.Trusted {
			n++
		}
	}
	if !o.asked {
		fmt.Fprintf(w, "Trusted on this machine:\n")
		for _, c := range o.Commands {
			io.WriteString(w, indent(c.Explain(o.w.Repo)))
		}
	}
	if n == len(o.Commands) {
		fmt.Fprintf(w, "Trusted %d command(s); the store is %s\n", n, o.Store)
		return
	}
	fmt.Fprintf(w, "Trusted %d of %d command(s); the store is %s\n", n, len(o.Commands), o.Store)
	fmt.Fprintf(w, "burl will not run the others; git burl trust asks again.\n")
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ") + "\n"
}

func (c *trustCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, cli.UsageError("trust", "takes no arguments")
	}
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	all, err := w.Commands()
	if err != nil {
		return nil, err
	}
	pending, err := trust.Untrusted(w.Repo, all...)
	if err != nil {
		return nil, err
	}
	st, err := trust.DefaultStore()
	if err != nil {
		return nil, err
	}
	out := trustOut{Repository: trust.Repository(w.Repo), Store: st.Path, Total: runnable(all), Commands: []trustEntry{}, w: w}
	for _, p := range pending {
		out.Commands = append(out.Commands, trustEntry{Pending: p, Where: p.Where()})
	}
	if len(pending) == 0 {
		return out, nil
	}
	terminal := isTerminalFile(ctx.Stdin)
	if !c.Yes && (c.JSON || !terminal) {
		if c.JSON {
			return out, nil // a listing: nothing is trusted without --yes
		}
		return nil, trust.Refusal(w.Repo, pending).
			WithFix("run git burl trust on a terminal to answer for each, or git burl trust --yes to trust them all")
	}
	// An agent runs as the user and could run this very command: inside a
	// watch run (decided by what it cannot unset, DESIGN §19) nothing is
	// trusted, so a pushed command still waits for a person.
	if w.Repo.InWatchRun() {
		return nil, trust.Refusal(w.Repo, pending).WithTitle("git burl trust does not trust anything inside a watch run").
			WithFix("a person runs git burl trust outside watch (its agents cannot trust commands)")
	}
	if c.Yes {
		if err := trust.Grant(w.Repo, commands(pending)...); err != nil {
			return nil, err
		}
		for i := range out.Commands {
			out.Commands[i].Trusted = true
		}
		return out, nil
	}
	out.asked = true
	in := bufio.NewReader(ctx.Stdin)
	for i, p := range pending {
		fmt.Fprintf(ctx.Stdout, "%s", p.Explain(w.Repo))
		fmt.Fprintf(ctx.Stdout, "Trust it? [y/N] ")
		line, rerr := in.ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a == "y" || a == "yes" {
			if err := trust.Grant(w.Repo, p.Command); err != nil {
				return nil, err
			}
			out.Commands[i].Trusted = true
		}
		if rerr != nil {
			fmt.Fprintln(ctx.Stdout)
			break
		}
	}
	return out, nil
}

// runnable counts the commands among cmds that run something: not the
// gates' lists, not an empty text (which are asked about only when they
// weaken a gate).
func runnable(cmds []trust.Command) int {
	n := 0
	for _, c := range cmds {
		if c.Gate != trust.GateList && strings.TrimSpace(c.Text) != "" {
			n++
		}
	}
	return n
}

func commands(ps []trust.Pending) []trust.Command {
	out := make([]trust.Command, len(ps))
	for i, p := range ps {
		out[i] = p.Command
	}
	return out
}

// isTerminalFile reports a person at a terminal on r (a terminal, not
// merely a character device: </dev/null answers nothing).
func isTerminalFile(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
