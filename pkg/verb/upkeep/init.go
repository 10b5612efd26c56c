package upkeep

import (
	"io"
	"path/filepath"
	"slices"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/hook"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Init is `git burl init`: what cmd/git-burl-init runs. Only the
// verbs a binary names are linked into it.
func Init() cli.Command { return &initCmd{} }

type initCmd struct {
	cli.JSONFlag
	MainBranch string `long:"main-branch" value-name:"NAME" description:"Branch approved work lands on (default: the branch checked out now)"`
	Remote     string `long:"remote" value-name:"NAME" description:"Remote to fetch main from and push to (default: origin)"`
	Hooks      bool   `long:"hooks" description:"Also install the commit-msg and pre-push hooks, as git burl hooks install does"`
}

type initOut struct {
	*workflow.InitResult
	Hooks *hook.Report `json:"hooks,omitempty"`
}

func (o initOut) Human(w io.Writer) {
	io.WriteString(w, o.InitResult.String())
	if o.Hooks != nil {
		writeHookReport(w, o.Hooks)
	}
}

func (c *initCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, cli.UsageError("init", "takes no arguments")
	}
	r, err := repo.Resolve(ctx.Dir)
	if err != nil {
		return nil, err
	}
	res, w, err := workflow.Init(r, workflow.InitOptions{MainBranch: c.MainBranch, Remote: c.Remote})
	if err != nil {
		return nil, err
	}
	// The build_command init wrote is its own default, not a text from the
	// workflow branch: trusted, unless init attached to an existing branch.
	if slices.Contains(res.Created, r.Rel(filepath.Join(r.WorkflowDir(), workflow.ConfigName))) && w.Config != nil {
		if _, err := trust.Implicit(w.Repo, w.BuildCommands()...); err != nil {
			return nil, err
		}
	}
	out := initOut{InitResult: res}
	if c.Hooks {
		if out.Hooks, err = hook.Install(ctx.Dir, false); err != nil {
			// init is idempotent: say that it worked, so a rerun after
			// fixing the hooks is the obvious step.
			e := errs.Wrap(err, errs.User, "")
			e.Title = "burl is initialised, but its hooks were not installed"
			return nil, e
		}
		warnNotOnPath(ctx)
	}
	return out, nil
}
