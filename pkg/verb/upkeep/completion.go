package upkeep

import (
	"io"

	"github.com/burl-dev/burl"
	"github.com/burl-dev/burl/pkg/cli"
)

// Completion is `git burl completion`: what cmd/git-burl-completion runs. Only the
// verbs a binary names are linked into it.
func Completion() cli.Command { return &completionCmd{} }

type completionCmd struct {
	cli.JSONFlag
}

// completionFiles maps a shell to its script in contrib/completion.
var completionFiles = map[string]string{
	"bash": "contrib/completion/git-burl.bash",
	"zsh":  "contrib/completion/_git-burl",
	"fish": "contrib/completion/git-burl.fish",
}

type completionOut struct {
	Shell  string `json:"shell"`
	Script string `json:"script"`
}

func (o completionOut) Human(w io.Writer) { io.WriteString(w, o.Script) }

func (c *completionCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) != 1 {
		return nil, cli.UsageError("completion", "expects one shell: bash, zsh or fish")
	}
	f, ok := completionFiles[args[0]]
	if !ok {
		return nil, cli.UsageError("completion", "knows bash, zsh and fish, not "+args[0])
	}
	data, err := burl.Completions.ReadFile(f)
	if err != nil {
		return nil, err
	}
	return completionOut{Shell: args[0], Script: string(data)}, nil
}
