// Package qa is what every verb that judges one task's work shares: the
// task's worktree as the gates need it, its build and verify commands run
// and logged, the QA Report entry that records them, and the reject of
// PRD 14.5. Validate, submit and reject use it, and so does pkg/land.
package qa

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Worktree checks that a task's worktree exists and has its branch
// checked out, and returns a git runner in it.
func Worktree(w *workflow.Workflow, t *task.Task) (string, gitx.Git, error) {
	p := w.WorktreePath(t)
	if p == "" {
		return "", gitx.Git{}, errs.New(errs.User, "%s has no worktree recorded", t.ID()).WithFix("git burl claim %s", t.ID())
	}
	if _, err := os.Stat(p); err != nil {
		return "", gitx.Git{}, errs.New(errs.User, "the worktree of %s is missing: %s", t.ID(), w.Rel(p)).
			WithFix("git burl worktree --ensure %s", t.ID())
	}
	g := gitx.In(p)
	if head, _, ok := integrate.Rebasing(g); ok {
		what := "a rebase"
		if head != "" {
			what += " of " + strings.TrimPrefix(head, "refs/heads/")
		}
		return "", gitx.Git{}, errs.New(errs.User, "%s is stopped in %s (HEAD is detached until it is finished)", what, w.Rel(p)).
			WithFix("finish it (resolve, git -C %s rebase --continue) or abort it (git -C %s rebase --abort), then run the command again", p, p)
	}
	if b := workflow.CurrentBranch(p); b != t.Branch() {
		return "", gitx.Git{}, errs.New(errs.User, "%s has %q checked out, not the task branch %s", w.Rel(p), b, t.Branch()).
			WithFix("git -C %s switch %s", p, t.Branch())
	}
	if t.BaseSHA() == "" {
		return "", gitx.Git{}, errs.New(errs.User, "%s has no base_sha; the diff-based gates need it", t.ID()).
			WithFix("git burl doctor")
	}
	return p, g, nil
}

// Run runs the named commands ("build": build_command, "verify": the
// task's verify command) in the worktree dir, each logged to
// .workflow/logs/<ID>/. approve --all runs each task's verify alone and
// the build once per stack of tasks.
func Run(w *workflow.Workflow, t *task.Task, dir string, now time.Time, names ...string) ([]gate.RunResult, gate.Violations, error) {
	// The texts about to run, checked here where they are read: nothing
	// from the workflow branch runs until this machine's user trusted it.
	if err := w.CheckConfigInput(); err != nil {
		return nil, nil, err
	}
	if err := trust.Check(w.Repo, Commands(w, t, "", names...)...); err != nil {
		return nil, nil, err
	}
	// The box is made (bubblewrap probed) only when a command runs: a
	// project without a build costs no bwrap start per approve.
	var box gate.Box
	boxed := false
	var results []gate.RunResult
	var vs gate.Violations
	// Milliseconds: a validate and the approve after it often start in
	// the same second, and the later run must not overwrite the log the
	// earlier QA report points to.
	stamp := now.UTC().Format("20060102T150405.000Z")
	for _, c := range []struct{ name, cmd, key string }{
		{"build", w.Config.BuildCommand, "build_command in " + w.Rel(filepath.Join(w.Dir, workflow.ConfigName))},
		{"verify", t.Str(task.KeyVerify), "verify in the task file"},
	} {
		if strings.TrimSpace(c.cmd) == "" || !slices.Contains(names, c.name) {
			continue
		}
		if !boxed {
			var err error
			if box, err = GateBox(w, dir, w.Config.BuildCommand, t.Str(task.KeyVerify)); err != nil {
				return nil, nil, err
			}
			boxed = true
		}
		logPath := filepath.Join(w.LogsDir(), t.ID(), stamp+"-"+c.name+".log")
		env := []string{"BURL_TASK=" + t.ID(), "BURL_BASE_SHA=" + t.BaseSHA()}
		// What the command leaves untracked is its output, which must not
		// hold the task up later (see workspace.Uncommitted).
		before, err := workspace.Untracked(gitx.In(dir))
		if err != nil {
			return nil, nil, err
		}
		res, err := gate.RunCommandIn(osx.InterruptContext(), box, c.name, c.cmd, dir, logPath, w.Config.BuildTimeout, env)
		if osx.Interrupted() {
			return nil, nil, errs.New(errs.User, "interrupted: the %s command (%s) was stopped with its process group, so nothing was judged or recorded", c.name, c.key).
				WithTitle("Stopped").WithFix("run the command again")
		}
		if err != nil {
			return nil, nil, errs.New(errs.User, "running %q (%s): %v", c.cmd, c.key, err)
		}
		if err := workspace.RecordBuildOutput(gitx.In(dir), before); err != nil {
			return nil, nil, err
		}
		res.LogPath = w.Rel(res.LogPath)
		results = append(results, res)
		if v, ok := res.Violation(); !ok {
			vs = append(vs, v)
		}
	}
	return results, vs, nil
}

// Commands are the commands among names ("build", "verify") that the
// gates would run for t, whose file is path ("" if not at hand).
func Commands(w *workflow.Workflow, t *task.Task, path string, names ...string) []trust.Command {
	// The stub gate runs with every one of them.
	out := w.StubCommands()
	if slices.Contains(names, "build") {
		out = append(out, w.BuildCommands()...)
	}
	if slices.Contains(names, "verify") {
		out = append(out, trust.Verify(t, path)...)
	}
	return out
}

// Report is a QA Report entry.
func Report(title string, now time.Time, actor, base, head string, diff gate.Violations, runs []gate.RunResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s — %s by %s\n\n", title, now.UTC().Format("2006-01-02T15:04:05Z"), actor)
	fmt.Fprintf(&b, "- range: %s..%s\n", gitx.Short(base), gitx.Short(head))
	var scope, stubs []string
	for _, v := range diff {
		switch v.Gate {
		case "scope":
			scope = append(scope, v.Message)
		case "stub":
			stubs = append(stubs, fmt.Sprintf("%s:%d  + %s", v.File, v.Line, v.Text))
		}
	}
	gateLine := func(name string, items []string) {
		if len(items) == 0 {
			fmt.Fprintf(&b, "- %s: pass\n", name)
			return
		}
		fmt.Fprintf(&b, "- %s: FAIL\n", name)
		for _, it := range items {
			fmt.Fprintf(&b, "  - `%s`\n", strings.ReplaceAll(it, "`", "'"))
		}
	}
	gateLine("scope", scope)
	gateLine("stubs", stubs)
	for _, r := range runs {
		verdict := "pass"
		if !r.OK() {
			verdict = "FAIL"
		}
		fmt.Fprintf(&b, "- %s: %s — `%s` exit %d in %.1fs (log: %s)\n", r.Name, verdict, r.Command, r.ExitCode, r.Seconds, r.LogPath)
		if !r.OK() && len(r.Tail) > 0 {
			fmt.Fprintf(&b, "\n```\n%s\n```\n", strings.ReplaceAll(strings.Join(r.Tail, "\n"), "```", "'''"))
		}
	}
	return b.String()
}
