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

// Main runs cmd, the verb called name, with args and returns the exit
// code. Each binary passes its own verb's constructor: no registry holds
// every verb, so the linker leaves the others out.
func Main(name string, cmd cli.Command, args []string) int {
	v, ok := catalog.Find(name)
	if !ok {
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
	return cli.Main(name, v.Usage, v.Summary, cmd, args)
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
