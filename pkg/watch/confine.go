package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// chooseSandbox decides, once at start, how agents are confined
// (agents.yaml sandbox:, DESIGN §16): bwrap where it works (auto), none
// with one line saying what is then unprotected, and sandbox: bwrap where
// it cannot work is an error.
func (s *supervisor) chooseSandbox() error {
	mode := s.file.Sandbox
	if mode == agents.SandboxNone {
		s.logf("sandbox: none (agents.yaml): agents run unconfined; after each run watch checks .git/config, the hooks, .git/info and .burl/ and undoes what changed (run_tampered)")
		return nil
	}
	err := sandbox.Probe()
	switch {
	case err == nil:
		s.bwrap = true
	case mode == agents.SandboxBwrap:
		return errs.New(errs.User, "agents.yaml asks for sandbox: bwrap, and %v", err).
			WithFix("install bubblewrap where user namespaces are allowed, or set sandbox: auto to run without it")
	default:
		s.logf("warning: no sandbox (%v): agents can write the whole repository; after each run watch checks .git/config, the hooks, .git/info and .burl/ and undoes what changed (run_tampered)", err)
	}
	return nil
}

// confine records what the run must not change and, with bubblewrap,
// prepares its box.
func (s *supervisor) confine(w *workflow.Workflow, t *task.Task, wt, taskLogs string) (*sandbox.Guard, *sandbox.Box, error) {
	guard, err := sandbox.Record(w.Repo.Root, w.Repo.CommonDir, w.Repo.Worktree)
	if err != nil {
		return nil, nil, err
	}
	if !s.bwrap {
		return guard, nil, nil
	}
	var ro []string
	if st, err := trust.DefaultStore(); err == nil {
		// An agent must not trust commands for the watcher.
		d := filepath.Dir(st.Path)
		if err := os.MkdirAll(d, 0o700); err == nil {
			ro = append(ro, d)
		}
	}
	box, err := sandbox.Prepare(sandbox.Spec{Root: w.Repo.Root, CommonDir: w.Repo.CommonDir, Worktree: wt,
		Branch: t.Branch(), TaskLogs: taskLogs, ReadOnly: ro})
	if err != nil {
		return nil, nil, err
	}
	return guard, box, nil
}

// unconfine carries the boxed run's branch back and checks the Guard under
// the workflow lock (only transitions, which hold it, change .burl/). A
// change fails the run: event run_tampered, and the reason it returns.
func (s *supervisor) unconfine(w *workflow.Workflow, id string, guard *sandbox.Guard, box *sandbox.Box) string {
	if box != nil {
		tried, err := box.Finish(w.Repo.Git)
		if err != nil {
			s.logf("%s: cannot carry the run's branch out of its sandbox: %v", id, err)
		}
		if len(tried) > 0 {
			s.logf("%s: the agent moved %s inside its sandbox; nothing changed outside it", id, strings.Join(tried, ", "))
		}
	}
	wl, err := w.LockWorkflow("run_tampered")
	if err != nil {
		s.logf("%s: cannot check what the run changed: %v", id, err)
		return ""
	}
	changes, undone := guard.Changes()
	wl.Release()
	if len(changes) == 0 {
		return ""
	}
	for i, c := range changes {
		changes[i] = w.Rel(c)
	}
	err = retryLocked(func() error {
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
		s.logf("%s: run_tampered not recorded: %v", id, err)
	}
	what := "it was put back"
	if !undone {
		what = "not all of it could be put back: look at it by hand"
	}
	s.logf("%s: the agent changed what no run may change (%s); %s", id, strings.Join(changes, "; "), what)
	return fmt.Sprintf("the agent changed what no run may change: %s; %s. An agent works in its worktree only: never in .burl/, .git/config, the hooks or .git/info", strings.Join(changes, "; "), what)
}
