package verb

import (
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/next"
	"github.com/burl-dev/burl/pkg/workflow"
)

// The frame's helpers, for the verbs of pkg/verb/views, authoring, gates and
// upkeep. This package's own verbs call them by their unexported names,
// which stay until the edits made to claim, submit and approve alongside
// the split are merged.

// Open resolves the workflow from the command's directory.
func Open(ctx *cli.Context) (*workflow.Workflow, error) { return open(ctx) }

// TaskArg normalises a positional task ID argument.
func TaskArg(args []string, verb string) (string, error) { return taskArg(args, verb) }

// TaskObject is a task as --json shows it.
func TaskObject(w *workflow.Workflow, e workflow.Entry) map[string]any { return taskObject(w, e) }

// NextOf is what happens next to one task, decided as status decides it.
func NextOf(w *workflow.Workflow, e *workflow.Entry) (next.Facts, next.Step) { return nextOf(w, e) }
