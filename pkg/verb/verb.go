// Package verb holds one file per burl verb. Each composes the lower
// packages (workflow, task, gate, gitx ...) and never re-implements them;
// cmd/git-burl-<verb> only calls Main.
package verb

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/burl-dev/burl/pkg/catalog"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// softMemoryLimit leaves room under 30 MiB for the runtime and binary.
const softMemoryLimit = 20 << 20

// commands maps a verb name to a constructor of its options struct.
var commands = map[string]func() cli.Command{}

func register(name string, f func() cli.Command) { commands[name] = f }

// Main runs verb name with args and returns the exit code.
func Main(name string, args []string) int {
	v, ok := catalog.Find(name)
	f, ok2 := commands[name]
	if !ok || !ok2 {
		fmt.Fprintf(os.Stderr, "burl: internal error: verb %q is not registered\n", name)
		return 1
	}
	// A soft heap limit: commands are short-lived and meant to stay small
	// (30 MiB peak); past it the GC works harder rather than letting a burst
	// of garbage (status parsing thousands of files) grow the heap. An
	// explicit GOMEMLIMIT still wins.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	return cli.Main(name, v.Usage, v.Summary, f(), args)
}

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
