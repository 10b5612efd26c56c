// Package runcheck confines a watch's runs, an agent's or a reviewer's,
// and checks what each did (DESIGN §19, §24): under bubblewrap or
// without, as agents.yaml's sandbox: asks; the user's credentials hidden
// and burl's pinned git configuration private; after the run, the refs
// and files no run may change, burl's own moves told apart from the run's
// (run_tampered), and every command halted while a directory of burl's
// state stays replaced. Checker is the one entry point, one per watch.
package runcheck

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/burl-dev/burl/pkg/agentbox"
	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/runguard"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Checker confines the runs of one watch and checks them: what it needs
// of the watch, and the state the checks keep between runs.
type Checker struct {
	// Dir is the repository the watch runs in.
	Dir string
	// Logf says a line of the watch's output; SayOnce says it the first
	// time its key is seen.
	Logf    func(format string, args ...any)
	SayOnce func(key, format string, args ...any)
	// Held are the tasks the watch runs now: their branches' moves are
	// burl's, not a run's.
	Held func() []string
	// Retry runs a transition again while it fails on a lock another
	// command holds.
	Retry func(func() error) error
	// Pin is the git configuration burl's own git reads (DESIGN §19),
	// set by PinConfig.
	Pin *runguard.Pin

	mu sync.Mutex
	// halted are state directories a run replaced: until they are put
	// back, watch runs nothing (HaltReason).
	halted []runguard.Replacement
	// mode is agents.yaml's sandbox: as the last round read it.
	mode string
}

// ChooseSandbox checks, at start, that agents can be confined as
// agents.yaml's sandbox: asks (DESIGN §19): bwrap where it works (auto,
// bwrap); where it cannot work, watch refuses to start agents, naming both
// ways out; none (which the user must trust) with one line saying what is
// then only checked after each run. Each run decides again (SandboxFor),
// so a trusted change of sandbox: reaches the next run.
func (c *Checker) ChooseSandbox(f *agents.File) error {
	c.mode = f.Sandbox
	if f.Sandbox == agents.SandboxNone {
		c.Logf("%s", noSandboxLine)
		return nil
	}
	_, err := SandboxFor(f.Agents[0])
	return err
}

// noSandboxLine is what watch says when agents run without a sandbox.
const noSandboxLine = "sandbox: none (agents.yaml): agents run unconfined; after each run watch checks .git/config, the hooks, .git/info, .burl/, every ref, the task's git dir, the object store's alternates, the global git config and burl's state directories, and undoes what changed (run_tampered)"

// SandboxFor is whether agent a's next run goes under bubblewrap, or why
// it may not run at all.
func SandboxFor(a agents.Agent) (bool, error) {
	if a.Sandbox == agents.SandboxNone {
		return false, nil
	}
	if err := sandbox.Probe(); err != nil {
		return false, errs.New(errs.User, "agents.yaml asks for sandbox: %s, and %v: watch starts no agent without its sandbox", a.Sandbox, err).
			WithFix("install bubblewrap (Debian: apt-get install bubblewrap) where user namespaces are allowed, or set sandbox: none in agents.yaml and trust it (git burl trust): agents then run unconfined, checked after each run")
	}
	return true, nil
}

// SandboxChanged says once when agents.yaml's sandbox: differs from what
// the last round read: runs under way keep theirs, the next ones take it.
func (c *Checker) SandboxChanged(f *agents.File) {
	if f == nil || f.Sandbox == c.mode {
		return
	}
	c.Logf("sandbox: %s from the next run on (agents.yaml changed; was %s)", f.Sandbox, c.mode)
	if f.Sandbox == agents.SandboxNone {
		c.Logf("%s", noSandboxLine)
	}
	c.mode = f.Sandbox
}

// Confine prepares the run's own git dir and out folder (DESIGN §19) for
// agent a, one of the agents of f, under bubblewrap with the user's credentials, burl's pinned git config
// hidden and the trust store and local remotes read-only, or without; and
// records what the run must not change. The runs a dead watcher left on
// the worktree are ended first (Prepare), so that what they bring in is
// not taken for this run's.
func (c *Checker) Confine(w *workflow.Workflow, f *agents.File, a agents.Agent, t *task.Task, wt string) (*runguard.Guard, *sandbox.Run, error) {
	bwrap, err := SandboxFor(a)
	if err != nil {
		return nil, nil, err
	}
	spec := sandbox.Spec{Repo: w.Repo, Task: t.ID(), Worktree: wt, Branch: t.Branch(), Bwrap: bwrap}
	if bwrap {
		hide, err := c.hidden(w, a, wt)
		if err != nil {
			return nil, nil, err
		}
		if st, err := trust.DefaultStore(); err == nil {
			// An agent must not trust commands for the watcher.
			spec.ReadOnly = append(spec.ReadOnly, filepath.Dir(st.Path))
		}
		spec.ReadOnly = append(spec.ReadOnly, hide.LocalRemotes...)
		spec.Hide = hide.Paths
		spec.Box = agentbox.Of(f, a)
		if c.Pin != nil {
			spec.Private = []string{c.Pin.Dir}
		}
	}
	state := stateDirs(w)
	run, err := sandbox.Prepare(spec)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range run.Swept {
		c.Logf("%s", n)
	}
	guard, err := runguard.Record(runguard.GuardSpec{Root: w.Repo.Root, CommonDir: w.Repo.CommonDir, WorkflowWorktree: w.Repo.Worktree, Hooks: w.Repo.HooksDir(),
		Pin: c.Pin, Unconfined: !bwrap, TaskGitDir: run.Admin, Branch: t.Branch(), State: state,
		// Its box decides, sandbox_write included: one git status the
		// fewer per run where the box keeps .burl/ read-only.
		WorkflowReadOnly: bwrap && !run.Box().Writes(w.Repo.Worktree)})
	if err != nil {
		run.Close()
		return nil, nil, err
	}
	return guard, run, nil
}

// Unconfine checks the Guard under the workflow lock (only transitions,
// which hold it, change .burl/), and the part of the run's own git dir
// that is burl's (which the run is discarded with: "put back"). A change
// fails the run: event run_tampered, and the reason it returns. A
// replaced state directory also stops every command of this watcher
// (halt), and then nothing of the run may be taken in (intact false).
func (c *Checker) Unconfine(w *workflow.Workflow, id string, guard *runguard.Guard, box *sandbox.Run) (reason string, intact bool) {
	wl, err := w.LockWorkflow("run_tampered")
	if err != nil {
		c.Logf("%s: cannot check what the run changed: %v", id, err)
		return "", true
	}
	var explain runguard.Explain
	var foreign []string
	if guard.Spec().Unconfined {
		explain = c.explainer(w, guard.Spec().Branch, guard.Began(), &foreign)
	}
	rep := guard.Changes(explain)
	wl.Release()
	changes, undone := rep.Changes, rep.Undone
	// The shared workflow branch only: the run's own git dir is thrown
	// away with whatever it moved there.
	if got := foreign; len(got) > 0 {
		changes = append(changes, fmt.Sprintf("refs/heads/%s gained commit(s) burl did not make: %s (left in place: revert them by hand)", w.Repo.Branch, strings.Join(got, "; ")))
		undone = false
	}
	if box != nil {
		changes = append(changes, box.Changed(explain)...)
	}
	if len(rep.Replaced) > 0 {
		c.halt(rep.Replaced)
		// Recording it runs no notifier: whether one is trusted is the
		// replaced store's say.
		if fresh, err := workflow.Open(c.Dir); err == nil {
			fresh.Actor, fresh.Config.Notify = w.Actor, nil
			w = fresh
		}
	}
	if len(changes) == 0 {
		return "", true
	}
	for i, c := range changes {
		changes[i] = w.Rel(c)
	}
	err = c.Retry(func() error {
		_, err := w.Run(workflow.Transition{Verb: "run_tampered", ID: id,
			From:    []workflow.Bucket{workflow.Doing, workflow.QA},
			Message: "run_tampered " + id,
			Apply: func(tx *workflow.Tx) error {
				tx.Details["changes"] = changes
				tx.Details["undone"] = undone
				return nil
			}})
		return err
	})
	if err != nil {
		c.Logf("%s: run_tampered not recorded: %v", id, err)
	}
	what := "it was put back"
	if !undone {
		what = "not all of it could be put back: look at it by hand"
	}
	c.Logf("%s: the agent changed what no run may change (%s); %s", id, strings.Join(changes, "; "), what)
	return fmt.Sprintf("the agent changed what no run may change: %s; %s. An agent works in its worktree only: never in .burl/, .git/, other refs, the global git config or burl's state", strings.Join(changes, "; "), what), len(rep.Replaced) == 0
}
