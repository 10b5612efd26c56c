package verb

import (
	"io"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/workflow"
)

func init() { register("init", func() cli.Command { return &initCmd{} }) }

type initCmd struct {
	cli.JSONFlag
	MainBranch string `long:"main-branch" value-name:"NAME" description:"Branch approved work lands on (default: the branch checked out now)"`
	Remote     string `long:"remote" value-name:"NAME" description:"Remote to fetch main from and push to (default: origin)"`
}

type initOut struct {
	*workflow.InitResult
}

func (o initOut) Human(w io.Writer) { io.WriteString(w, o.InitResult.String()) }

func (c *initCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, usageErr("init", "takes no arguments")
	}
	r, err := repo.Resolve(ctx.Dir)
	if err != nil {
		return nil, err
	}
	res, _, err := workflow.Init(r, workflow.InitOptions{MainBranch: c.MainBranch, Remote: c.Remote})
	if err != nil {
		return nil, err
	}
	return initOut{res}, nil
}
