// Package taskgate gates one task's work as every verb that checks it does
// (submit, validate, approve, and the commit-msg and pre-push hooks): the
// task's scope and the workflow's stub patterns over its diff, from where
// its own changes start, and the exit-2 error naming what failed with one
// fix per gate. pkg/gate holds the gates themselves; this package feeds
// them a task and its workflow, and imports nothing the hooks do not need.
package taskgate

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Scope is a task's declared scope, as the gates see it.
func Scope(t *task.Task) gate.Scope {
	return gate.Scope{
		Affects:      t.List(task.KeyAffects),
		AffectsGlobs: t.List(task.KeyAffectsGlobs),
		MustNotTouch: t.List(task.KeyMustNotTouch),
	}
}

// gateScope is Scope as the gates check it in w's repository: burl's own
// paths refused whatever the task declares.
func gateScope(w *workflow.Workflow, t *task.Task) gate.Scope {
	s := Scope(t)
	s.Reserved = w.Repo.Reserved()
	return s
}

// Base is where the task's own changes start: stack_base (a stacked
// task's parent head), base_sha, or a newer
// main the worker has since rebased onto or merged, as approve's conflict
// message tells them to. Diffing from base_sha would then charge the task
// with everything main gained meanwhile (other tasks' files, their added
// lines). base_sha itself is never rewritten (PRD 11.6).
func Base(w *workflow.Workflow, t *task.Task, g gitx.Git, head string) string {
	base := t.BaseSHA()
	// A stacked task's own work starts at its parent's head (DESIGN §26).
	if sb := t.Str(task.KeyStackBase); sb != "" && sb != base {
		if in, err := g.Test("merge-base", "--is-ancestor", sb, head); err == nil && in {
			return sb
		}
	}
	mains := []string{"refs/heads/" + w.Config.MainBranch}
	if w.Repo.HasRemote(w.Config.Remote) {
		mains = append(mains, gitx.Tracking(w.Config.Remote, w.Config.MainBranch))
	}
	if baseStands(g, base, head, mains) {
		return base
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

// CheckRange runs the scope and stub gates over base..head. base comes
// from the task file: --end-of-options keeps git from ever reading it as
// an option, whatever slipped past validation.
func CheckRange(w *workflow.Workflow, t *task.Task, g gitx.Git, base, head string) (gate.Violations, error) {
	// Scope, stubs and build come from the workflow branch as committed,
	// never from what a worker edited there (DESIGN §15).
	if err := w.CheckGateInputs(t); err != nil {
		return nil, err
	}
	// Patterns or extensions removed by a push make the stub gate check
	// less: that needs this user's trust first (DESIGN §19).
	if err := trust.Check(w.Repo, w.StubCommands()...); err != nil {
		return nil, err
	}
	stubs, err := stubScanner(w)
	if err != nil {
		return nil, err
	}
	return gate.CheckDiff(g, []string{"--end-of-options", base + ".." + head}, gateScope(w, t), stubs)
}

// CheckDiff is CheckRange for a diff started before the task was known
// (commit-msg starts `git diff --cached` while it looks the task up).
func CheckDiff(w *workflow.Workflow, t *task.Task, d *gate.Diff) (gate.Violations, error) {
	stubs, err := stubScanner(w)
	if err != nil {
		d.Abandon()
		return nil, err
	}
	return d.Check(gateScope(w, t), stubs)
}

// stubScanner compiles the workflow's stub_patterns; a bad one names the
// configuration file to fix.
func stubScanner(w *workflow.Workflow) (*gate.StubScanner, error) {
	stubs, err := gate.NewStubScanner(w.Config.StubPatterns, w.Config.StubCheckExtensions)
	if err != nil {
		return nil, errs.New(errs.User, "stub_patterns in %s: %v", w.Rel(filepath.Join(w.Dir, workflow.ConfigName)), err)
	}
	return stubs, nil
}

// Error is the exit-2 failure carrying the violations, with a fix for
// each gate that failed: the one line that helps, not all of them.
func Error(w *workflow.Workflow, verb, id string, vs gate.Violations) error {
	var what, fixes, scopeFiles, ownFiles, stubLines []string
	kinds := map[string]bool{}
	for _, v := range vs {
		kinds[v.Gate] = true
		switch {
		case v.Gate == "scope" && v.Rule == gate.RuleReserved:
			ownFiles = append(ownFiles, v.File)
		case v.Gate == "scope":
			scopeFiles = append(scopeFiles, v.File)
		case v.Gate == "stub":
			stubLines = append(stubLines, fmt.Sprintf("%s:%d", v.File, v.Line))
		}
	}
	if len(ownFiles) > 0 {
		// No scope allows them: widening is no way out.
		what = append(what, fmt.Sprintf("%d file(s) in burl's own path (the workflow worktree, the worktrees folder, .git), never part of a task's change: %s", len(ownFiles), strings.Join(ownFiles, ", ")))
		quoted := make([]string, len(ownFiles))
		for i, f := range ownFiles {
			quoted[i] = osx.ShellQuote(f)
		}
		fixes = append(fixes, fmt.Sprintf("burl's own paths: remove them from the task's commits (git rm -r --cached -- %s, commit; the branch must not hold them)", strings.Join(quoted, " ")))
	}
	if len(scopeFiles) > 0 {
		// Every file, on the first line: it is the summary boards show
		// (DESIGN §20), the count first so that a cut keeps it.
		what = append(what, fmt.Sprintf("Scope violation: %d file(s) outside %s's scope: %s", len(scopeFiles), id, strings.Join(scopeFiles, ", ")))
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

// ScopeCommand is the scope command that allows every one of files.
func ScopeCommand(id string, files []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "git burl scope %s", id)
	if len(files) == 0 {
		files = []string{"FILE"}
	}
	for _, f := range files {
		fmt.Fprintf(&b, " --affects %s", osx.ShellQuote(f))
	}
	b.WriteString(` --reason "why the task needs them"`)
	return b.String()
}

// scopeFix names the task file and the scope command that would allow
// every file, or reverting them; a task past DOING goes back through
// reject first, as scope changes only READY, DOING and BLOCKED tasks.
func scopeFix(w *workflow.Workflow, verb, id string, files []string) string {
	where := "the task file"
	if found, err := w.Locate(id); err == nil && len(found) == 1 {
		where = w.Rel(found[0].Path)
	}
	cmd := ScopeCommand(id, files)
	if w.Repo.InWatchRun() {
		// The worker is an agent: nothing it runs lifts its own gate
		// (DESIGN §15), and it must not be told otherwise. The human
		// reads their own fix where watch blocks the task.
		quoted := make([]string, len(files))
		for i, f := range files {
			quoted[i] = osx.ShellQuote(f)
		}
		return fmt.Sprintf("scope: revert the changes to those files (git checkout BASE -- %s; the base is the task's base_sha). Only a human widens the scope: if the task truly needs them, say why in your output", strings.Join(quoted, " "))
	}
	if verb == "validate" || verb == "approve" {
		return fmt.Sprintf(`scope: if the task needs those files, reject it (git burl reject %s --reason "...") and widen its scope: %s; the scope is affects/affects_globs in %s`, id, cmd, where)
	}
	return fmt.Sprintf("scope: revert the changes to those files, or, if the task needs them, widen its scope: %s (the scope is affects/affects_globs in %s)", cmd, where)
}

// baseStands reports, from walks through cat-file (DESIGN §28), that the
// newest commit head shares with any of mains is base itself: every path
// back from head and from each main (one not there aside) reaches base,
// and no commit on them is on both sides. false means git decides.
func baseStands(g gitx.Git, base, head string, mains []string) bool {
	if !gitx.ValidObjectID(base) {
		return false
	}
	own, ok := g.Since(base, head)
	if !ok {
		return false
	}
	mine := map[string]bool{}
	for _, c := range own {
		mine[c] = true
	}
	found := false
	for _, m := range mains {
		if !g.Has(m + "^{commit}") {
			continue
		}
		found = true
		theirs, ok := g.Since(base, m)
		if !ok {
			return false
		}
		for _, c := range theirs {
			if mine[c] {
				return false
			}
		}
	}
	return found
}
