package workflow

import (
	"github.com/burl-dev/burl/pkg/gateinput"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/provenance"
	"github.com/burl-dev/burl/pkg/task"
)

// The gates' inputs and the provenance of the workflow branch's commits
// are packages gateinput's and provenance's; these names keep the
// workflow's callers as they were.

// GateFields are the frontmatter keys of a task that its gates read.
var GateFields = gateinput.GateFields

func (w *Workflow) gateInputs() *gateinput.Inputs {
	return &gateinput.Inputs{Repo: w.Repo, Config: w.Config, Dir: w.Dir, Git: w.gitWT(), Get: w.Get}
}

// CheckGateInputs refuses to gate t on inputs the worker could have
// changed unseen (gateinput.Inputs.CheckGateInputs).
func (w *Workflow) CheckGateInputs(t *task.Task) error { return w.gateInputs().CheckGateInputs(t) }

// CheckConfigInput is CheckGateInputs for config.yaml alone.
func (w *Workflow) CheckConfigInput() error { return w.gateInputs().CheckConfigInput() }

// CommittedInput is a gate input of the workflow folder as the workflow
// branch's commit holds it: its bytes and whether it is there.
func (w *Workflow) CommittedInput(path string) ([]byte, bool, error) {
	return w.gateInputs().CommittedInput(path)
}

// UncommittedInput is the error of an uncommitted edit of a gate input.
func (w *Workflow) UncommittedInput(path string, keys []string) error {
	return w.gateInputs().UncommittedInput(path, keys)
}

// NotBurls are the commits of old..new on the workflow branch that burl
// did not make (provenance.Branch.NotBurls).
func (w *Workflow) NotBurls(g gitx.Git, old, new string) ([]string, error) {
	return (&provenance.Branch{Dir: w.Dir, Git: w.gitWT()}).NotBurls(g, old, new)
}
