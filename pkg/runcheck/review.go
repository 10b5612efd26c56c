package runcheck

import (
	"github.com/burl-dev/burl/pkg/agentbox"
	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/runguard"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// ConfineReview records what the review of agent a (one of the agents
// of f) must not change and, with
// bubblewrap, wraps argv so that the repository is read-only to it and
// only tmp (its checkout and its verdict's folder) is writable.
func (c *Checker) ConfineReview(w *workflow.Workflow, f *agents.File, a agents.Agent, t *task.Task, tmp, src string, argv []string) (*runguard.Guard, []string, error) {
	bwrap, err := SandboxFor(a)
	if err != nil {
		return nil, nil, err
	}
	wt := w.WorktreePath(t)
	admin, _ := sandbox.AdminDir(w.Repo, wt)
	spec := runguard.GuardSpec{Root: w.Repo.Root, CommonDir: w.Repo.CommonDir, WorkflowWorktree: w.Repo.Worktree,
		Pin: c.Pin, Unconfined: !bwrap, TaskGitDir: admin, Branch: t.Branch(), State: stateDirs(w)}
	if !bwrap {
		guard, err := runguard.Record(spec)
		return guard, argv, err
	}
	hide, err := c.hidden(w, a, wt)
	if err != nil {
		return nil, nil, err
	}
	// The task's worktree by name too: a worktree path may lead out of
	// the repository's root.
	ro := append(append(stateDirs(w), hide.LocalRemotes...), wt)
	box := sandbox.Spec{Repo: w.Repo, Task: t.ID(), Worktree: src, Branch: t.Branch(), Bwrap: true, ReadOnly: ro, Hide: hide.Paths, Box: agentbox.Of(f, a)}
	if c.Pin != nil {
		box.Private = []string{c.Pin.Dir}
	}
	// As after an agent's run: a reviewer whose box keeps .burl/
	// read-only is not asked about it.
	spec.WorkflowReadOnly = !sandbox.ReadOnlyBox(box, tmp).Writes(w.Repo.Worktree)
	guard, err := runguard.Record(spec)
	if err != nil {
		return nil, nil, err
	}
	argv, err = sandbox.ReadOnly(box, sandbox.ReviewInfo(t.ID(), t.Branch(), tmp), tmp, argv)
	return guard, argv, err
}
