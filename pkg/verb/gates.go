package verb

import (
	"context"
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
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// taskWorktree checks that a task's worktree exists and has its branch
// checked out, and returns a git runner in it.
func taskWorktree(w *workflow.Workflow, t *task.Task) (string, gitx.Git, error) {
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
		return "", gitx.Git{}, errs.New(errs.User, "a rebase of %s is stopped in %s (HEAD is detached until it is finished)", strings.TrimPrefix(head, "refs/heads/"), w.Rel(p)).
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

// diffBase is where the task's own changes start: base_sha, or a newer
// main the worker has since rebased onto or merged, as approve's conflict
// message tells them to. Diffing from base_sha would then charge the task
// with everything main gained meanwhile (other tasks' files, their added
// lines). base_sha itself is never rewritten (PRD 11.6).
func diffBase(w *workflow.Workflow, t *task.Task, g gitx.Git, head string) string {
	base := t.BaseSHA()
	mains := []string{"refs/heads/" + w.Config.MainBranch}
	if w.Repo.HasRemote(w.Config.Remote) {
		mains = append(mains, gitx.Tracking(w.Config.Remote, w.Config.MainBranch))
	}
	// With both mains, git answers for head and a merge of the two: the
	// newest commit head shares with either, in one process.
	mb, err := g.Run(append([]string{"merge-base", head}, mains...)...)
	if err != nil && len(mains) > 1 {
		// The remote's main was never fetched.
		mb, err = g.Run("merge-base", head, mains[0])
	}
	if err != nil || mb == base {
		return base
	}
	if newer, err := g.Test("merge-base", "--is-ancestor", base, mb); err == nil && newer {
		return mb
	}
	return base
}

// diffGates runs the scope and stub gates over base..head. base comes
// from the task file: --end-of-options keeps git from ever reading it as
// an option, whatever slipped past validation.
func diffGates(w *workflow.Workflow, t *task.Task, g gitx.Git, base, head string) (gate.Violations, error) {
	return gatesOver(w, t, g, "--end-of-options", base+".."+head)
}

// gatesOver runs the scope and stub gates over the diff that `git diff
// <rangeArgs>` shows: a range, or --cached for what is about to be committed.
func gatesOver(w *workflow.Workflow, t *task.Task, g gitx.Git, rangeArgs ...string) (gate.Violations, error) {
	stubs, err := stubScanner(w)
	if err != nil {
		return nil, err
	}
	return gate.CheckDiff(g, rangeArgs, scopeOf(t), stubs)
}

// gatesOn is gatesOver for a diff started before the task was known.
func gatesOn(w *workflow.Workflow, t *task.Task, d *gate.Diff) (gate.Violations, error) {
	stubs, err := stubScanner(w)
	if err != nil {
		d.Abandon()
		return nil, err
	}
	return d.Check(scopeOf(t), stubs)
}

func stubScanner(w *workflow.Workflow) (*gate.StubScanner, error) {
	stubs, err := gate.NewStubScanner(w.Config.StubPatterns, w.Config.StubCheckExtensions)
	if err != nil {
		return nil, errs.New(errs.User, "stub_patterns in %s: %v", w.Rel(filepath.Join(w.Dir, workflow.ConfigName)), err)
	}
	return stubs, nil
}

// gateError is the exit-2 failure carrying the violations, with a fix for
// each gate that failed: the one line that helps, not all of them.
func gateError(w *workflow.Workflow, verb, id string, vs gate.Violations) error {
	var what, fixes, scopeFiles, stubLines []string
	kinds := map[string]bool{}
	for _, v := range vs {
		kinds[v.Gate] = true
		switch v.Gate {
		case "scope":
			scopeFiles = append(scopeFiles, v.File)
		case "stub":
			stubLines = append(stubLines, fmt.Sprintf("%s:%d", v.File, v.Line))
		}
	}
	if kinds["scope"] {
		what = append(what, "Scope violation: "+id+" touched files outside its allowed scope")
		fixes = append(fixes, scopeFix(w, verb, id, scopeFiles))
	}
	if kinds["stub"] {
		what = append(what, "Stub patterns found in added lines")
		fixes = append(fixes, "stubs: replace the added lines at "+strings.Join(stubLines, ", ")+" with real code and commit")
	}
	for _, c := range []struct{ gate, what string }{{"build", "build_command failed"}, {"verify", "the task's verify command failed"}} {
		if kinds[c.gate] {
			what = append(what, c.what)
			fixes = append(fixes, c.gate+": fix what the last lines of its output above show (the whole output is in the log named there), commit, and run it again")
		}
	}
	return &errs.Error{Kind: errs.Validation, Title: fmt.Sprintf("Cannot %s %s", verb, id),
		Reason: strings.Join(what, "\n"), Violations: vs, Fix: strings.Join(fixes, "\n     ")}
}

// scopeFix names the task file and the scope command that would allow
// files (the first one as the example), or reverting them; a task past
// DOING goes back through reject first, as scope changes only READY and
// DOING tasks.
func scopeFix(w *workflow.Workflow, verb, id string, files []string) string {
	file := "FILE"
	if len(files) > 0 && files[0] != "" {
		file = files[0]
	}
	where := "the task file"
	if found, err := w.Locate(id); err == nil && len(found) == 1 {
		where = w.Rel(found[0].Path)
	}
	cmd := fmt.Sprintf(`git burl scope %s --affects %s --reason "why the task needs it"`, id, file)
	if verb == "validate" || verb == "approve" {
		return fmt.Sprintf(`scope: if the task needs those files, reject it (git burl reject %s --reason "...") and widen its scope: %s; the scope is affects/affects_globs in %s`, id, cmd, where)
	}
	return fmt.Sprintf("scope: revert the changes to those files, or, if the task needs them, widen its scope: %s (the scope is affects/affects_globs in %s)", cmd, where)
}

// runCommands runs build_command and the task's verify command in the
// worktree, each logged to .workflow/logs/<ID>/.
func runCommands(w *workflow.Workflow, t *task.Task, dir string, now time.Time) ([]gate.RunResult, gate.Violations, error) {
	return runSome(w, t, dir, now, "build", "verify")
}

// runSome is runCommands for the named commands only: approve --all runs
// each task's verify alone and the build once per stack of tasks.
func runSome(w *workflow.Workflow, t *task.Task, dir string, now time.Time, names ...string) ([]gate.RunResult, gate.Violations, error) {
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
		logPath := filepath.Join(w.LogsDir(), t.ID(), stamp+"-"+c.name+".log")
		env := []string{"BURL_TASK=" + t.ID(), "BURL_BASE_SHA=" + t.BaseSHA()}
		res, err := gate.RunCommand(context.Background(), c.name, c.cmd, dir, logPath, w.Config.BuildTimeout, env)
		if err != nil {
			return nil, nil, errs.New(errs.User, "running %q (%s): %v", c.cmd, c.key, err)
		}
		res.LogPath = w.Rel(res.LogPath)
		results = append(results, res)
		if v, ok := res.Violation(); !ok {
			vs = append(vs, v)
		}
	}
	return results, vs, nil
}

// report is a QA Report entry.
func report(title string, now time.Time, actor, base, head string, diff gate.Violations, runs []gate.RunResult) string {
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
