// Package verb holds the frame every verb shares (Main, the workflow opened
// from the command's directory, a task ID argument, a task and its next step
// as --json shows them) and the verbs that move a task between buckets
// (claim, submit, approve, release, stop, watch ...). The other verbs are in
// its subpackages by family: views, authoring, gates, upkeep. Each verb
// composes the lower packages (workflow, task, gate, gitx ...) and never
// re-implements them; cmd/git-burl-<verb> only calls Main.
package verb

import (
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Main is cli.Main, where every cmd/git-burl-<verb> reaches it: the hook's
// binary calls cli.Main directly so that it does not link this package.
func Main(name string, cmd cli.Command, args []string) int { return cli.Main(name, cmd, args) }

// open resolves the workflow from the command's directory.
func open(ctx *cli.Context) (*workflow.Workflow, error) {
	w, err := workflow.Open(ctx.Dir)
	if err != nil {
		return nil, err
	}
	w.Stderr = ctx.Stderr
	return w, nil
}

// taskArg normalises a positional task ID argument.
func taskArg(args []string, verb string) (string, error) {
	if len(args) != 1 {
		return "", usageErr(verb, "expects exactly one task ID")
	}
	return task.NormalizeID(args[0])
}
