package review

import (
	"os"
	"path/filepath"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Settings is agents.yaml's review: as the workflow branch's commit holds
// it, nil when no review is configured. It decides whether a task may
// land, so it is a gate's input (DESIGN §15): an uncommitted edit of it
// is an error naming the file, and an agents.yaml that does not parse is
// one too (a gate that cannot be read is not open).
func Settings(w *workflow.Workflow) (*agents.Review, error) {
	path := filepath.Join(w.Dir, agents.FileName)
	data, ok, err := w.CommittedInput(path)
	if err != nil {
		return nil, err
	}
	var committed *agents.Review
	if ok {
		f, err := agents.Parse(path, data)
		if err != nil {
			return nil, err
		}
		committed = f.Review
	}
	if !w.Config.WorkflowAutoCommit {
		return committed, nil
	}
	// The file as it is now: an edit not committed must not open (nor
	// close) the gate unseen.
	var now *agents.Review
	if cur, err := os.ReadFile(path); err == nil {
		if f, err := agents.Parse(path, cur); err == nil {
			now = f.Review
		} else if ok {
			return nil, err
		}
	}
	if !same(now, committed) {
		return nil, w.UncommittedInput(path, []string{"review"})
	}
	return committed, nil
}

func same(a, b *agents.Review) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Agent == b.Agent && a.Rounds == b.Rounds
}
