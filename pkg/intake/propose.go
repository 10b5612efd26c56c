package intake

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/burl-dev/burl/pkg/bulk"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Proposer is who proposes a task (DESIGN §27): an agent inside a watch
// run, or anyone who asks with add --propose or MCP's propose.
type Proposer struct {
	// By is the actor (the agent, inside a run), From the task it was
	// discovered from ("" when none is known).
	By, From string
	// Out is a sandboxed run's out folder: the run cannot write the
	// workflow, so the proposal waits there for watch to record it.
	Out string
}

// Proposing tells whether a new task is a proposal and whose. Inside a
// watch run it always is, whatever the flags say (decided by what the
// agent cannot unset, as trust and scope decide it), and it comes from
// the run's task; outside one, only when asked (explicit), from the task
// named by from or else the task whose worktree dir is in.
func Proposing(w *workflow.Workflow, explicit bool, from, dir string) (*Proposer, error) {
	if from != "" {
		id, err := task.NormalizeID(from)
		if err != nil {
			return nil, errs.Wrap(err, errs.User, "Cannot propose the task")
		}
		from = id
	}
	if info, ok := sandbox.Active(w.Repo); ok {
		if from != "" && from != info.Task {
			return nil, errs.New(errs.User, "inside the watch run of %s a task is proposed as discovered from %s only", info.Task, info.Task).
				WithTitle("Cannot propose the task").WithFix("leave out --discovered-from")
		}
		return &Proposer{By: w.Actor, From: info.Task, Out: info.Out}, nil
	}
	if !explicit && !w.Repo.InWatchRun() {
		return nil, nil
	}
	p := &Proposer{By: w.Actor, From: from}
	if p.From == "" && w.Repo.InWatchRun() {
		// Unconfined, the run's task is what watch put in its environment.
		if id, err := task.NormalizeID(os.Getenv("BURL_TASK")); err == nil {
			p.From = id
		}
	}
	if p.From == "" {
		if id, err := w.TaskArgOrCurrent(nil, dir, "add"); err == nil {
			p.From = id
		}
	}
	if p.From != "" {
		if found, err := w.Locate(p.From); err != nil {
			return nil, err
		} else if len(found) == 0 {
			return nil, errs.New(errs.User, "--discovered-from %s: no such task", p.From).WithTitle("Cannot propose the task").
				WithFix("git burl status lists the tasks")
		}
	}
	return p, nil
}

// proposalPrefix names the files a sandboxed run leaves in its out
// folder, one proposal each: an add --from file of one entry.
const proposalPrefix = "proposed-"

// maxProposal bounds one proposal file.
const maxProposal = 1 << 20

// Defer leaves in's proposal for watch to record when the run ends.
func (p *Proposer) Defer(in bulk.Entry) error {
	in.Line = 0
	data, err := yaml.Marshal([]bulk.Entry{in})
	if err != nil {
		return err
	}
	name := fmt.Sprintf("%s%d.yaml", proposalPrefix, time.Now().UnixNano())
	return os.WriteFile(filepath.Join(p.Out, name), data, 0o644)
}

// Recorded is one proposal a run left, as watch recorded it.
type Recorded struct {
	Entry *workflow.Entry // nil when it was refused
	Title string
	Err   error
}

// RecordDeferred creates in PROPOSED each proposal the sandboxed run of
// task from left in out, in the order it made them, as actor's. Each is
// checked as add checks its flags: the folder is the agent's to write.
// retry runs each creation (watch retries a held workflow lock).
func RecordDeferred(w *workflow.Workflow, out, actor, from string, retry func(func() error) error) []Recorded {
	d, err := osx.OpenInside(out, ".", true)
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	slices.Sort(names)
	var done []Recorded
	for _, n := range names {
		if !strings.HasPrefix(n, proposalPrefix) {
			continue
		}
		entries, err := readProposal(out, n)
		if err != nil {
			done = append(done, Recorded{Title: n, Err: err})
			continue
		}
		for _, in := range entries {
			r := Recorded{Title: in.Title}
			r.Err = retry(func() error {
				spec, err := Check(in, n+": ")
				if err != nil {
					return err
				}
				if spec.DependsOn, err = KnownDeps(w, spec.DependsOn, nil); err != nil {
					return err
				}
				r.Entry, err = Create(w, spec, workflow.Proposed, actor, from)
				return err
			})
			done = append(done, r)
		}
	}
	return done
}

func readProposal(dir, name string) ([]bulk.Entry, error) {
	data, err := osx.ReadInside(dir, name, maxProposal)
	if err != nil {
		return nil, err
	}
	return bulk.Parse(name, data)
}
