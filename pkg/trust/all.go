package trust

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/workflow"
)

// All is every command the workflow holds that burl may run: build_command,
// each agent's command and env, and the verify of every task not DONE.
func All(w *workflow.Workflow) ([]Command, error) {
	out := Build(w)
	out = append(out, Setup(w)...)
	for i, n := range w.Config.Notify {
		out = append(out, Notifier(w, i, n))
	}
	if p := filepath.Join(w.Dir, agents.FileName); exists(p) {
		f, err := agents.Load(p)
		if err != nil {
			return nil, err
		}
		for _, a := range f.Agents {
			out = append(out, Agent(w, a)...)
		}
	}
	for _, b := range []workflow.Bucket{workflow.Ready, workflow.Doing, workflow.QA, workflow.Blocked} {
		good, _, err := w.InBucket(b)
		if err != nil {
			return nil, err
		}
		for _, e := range good {
			out = append(out, Verify(e.Task, e.Path)...)
		}
	}
	return out, nil
}

// The runner's notifiers are asked about here: workflow cannot import
// this package, and every binary that makes transitions links it.
func init() {
	workflow.NotifierTrusted = func(w *workflow.Workflow, i int, n config.Notifier) error {
		ps, err := Untrusted(w, Notifier(w, i, n))
		if err == nil && len(ps) > 0 {
			err = errors.New("not trusted on this machine (git burl trust shows it and asks)")
		}
		return err
	}
}

// Build is build_command, when one is set.
func Build(w *workflow.Workflow) []Command {
	if w.Config.BuildCommand == "" {
		return nil
	}
	return []Command{Config(w, "build_command", w.Config.BuildCommand)}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

// Queue is what approve --all would run now: build_command and the verify
// of every QA task. watch asks before it starts the queue, so that it says
// once what is untrusted rather than run a queue that refuses each round.
func Queue(w *workflow.Workflow) []Command {
	out := Build(w)
	if qa, _, err := w.InBucket(workflow.QA); err == nil {
		for _, e := range qa {
			out = append(out, Verify(e.Task, e.Path)...)
		}
	}
	return out
}
