// Package brief is what watch tells of a task's runs: the prompt an
// agent is given for its next run (DESIGN §10), a refused submit as that
// prompt shows it, and the reason a human reads when the runs failed and
// the task is blocked (DESIGN §25).
package brief

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Prompt is the markdown an agent is given for one run (DESIGN §10): the
// task file, its scope and the gates in words, every prior QA rejection,
// the previous run's failure, and what its DONE dependencies delivered.
func Prompt(w *workflow.Workflow, e *workflow.Entry, attempt int, failure string) string {
	t := e.Task
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", t.ID(), t.Title())
	fmt.Fprintf(&b, "You are working on task %s in the git worktree %s (branch %s), attempt %d.\n", t.ID(), t.Worktree(), t.Branch(), attempt)
	b.WriteString("Make the change the task asks for in this worktree. Commit it, or leave it uncommitted and it is committed for you; it is then submitted through the gates below.\n\n")

	if s := stack.Told(t); s != "" {
		b.WriteString("## Stacked on " + t.Str(task.KeyStackedOn) + "\n\n" + s + "\n")
	}
	b.WriteString("## Scope\n\n")
	b.WriteString(scopeWords(t))
	b.WriteString("\n## Gates\n\n")
	c := w.Config
	fmt.Fprintf(&b, "- Added lines in files ending in %s must not match any stub pattern: %s.\n",
		strings.Join(dotted(c.StubCheckExtensions), ", "), quoteAll(c.StubPatterns))
	if c.BuildCommand != "" {
		fmt.Fprintf(&b, "- The build command `%s` must pass in the worktree (timeout %s).\n", c.BuildCommand, c.BuildTimeout)
	} else {
		b.WriteString("- No build command is configured.\n")
	}
	if v := t.Str(task.KeyVerify); v != "" {
		fmt.Fprintf(&b, "- The task's verify command `%s` must pass.\n", v)
	}
	b.WriteString("- The work must change something: a run that leaves the branch as it was, or at a head a QA rejection already answered, fails.\n")

	if rs := t.Rejections(); len(rs) > 0 {
		b.WriteString("\n## Earlier QA rejections (fix every one)\n\n")
		for _, r := range rs {
			fmt.Fprintf(&b, "- %s\n", r.Text)
		}
	}
	if fc := t.LastFailedChecks(); fc != "" {
		b.WriteString("\n## The forge's checks failed on your last submission (fix what they say)\n\n")
		b.WriteString(strings.TrimSpace(strings.TrimPrefix(fc, task.FailedChecksMarker)))
		b.WriteString("\n")
	}
	if rv := t.LastReviewRequest(); rv != "" {
		b.WriteString("\n## The reviewer requested changes on your last submission (address every comment)\n\n")
		b.WriteString(rv)
		b.WriteString("\n")
	}
	if us := t.Unblocks(); len(us) > 0 {
		b.WriteString("\n## Why this task was BLOCKED before (a human unblocked it since)\n\n")
		for _, u := range us {
			fmt.Fprintf(&b, "- %s (%s)\n", u.Text, u.Heading)
		}
	}
	if failure != "" {
		b.WriteString("\n## The previous run failed\n\n```\n")
		b.WriteString(strings.TrimRight(failure, "\n"))
		b.WriteString("\n```\n")
	}
	if deps := dependencies(w, t); deps != "" {
		b.WriteString("\n## What the tasks this one depends on delivered\n\n")
		b.WriteString(deps)
	}
	// The template's placeholder lines say what to write, not what to do.
	file, templated := task.StripPlaceholders(string(t.Bytes()))
	b.WriteString("\n## The task file\n\n")
	if templated {
		b.WriteString("(The template's placeholder lines are left out.)\n\n")
	}
	b.WriteString("````markdown\n")
	b.WriteString(file)
	b.WriteString("\n````\n")
	return b.String()
}

func scopeWords(t *task.Task) string {
	var b strings.Builder
	affects, globs, never := t.List(task.KeyAffects), t.List(task.KeyAffectsGlobs), t.List(task.KeyMustNotTouch)
	if len(affects)+len(globs) == 0 {
		b.WriteString("- The task declares no scope: you may change any file (except those below).\n")
	}
	if len(affects) > 0 {
		fmt.Fprintf(&b, "- You may change these files: %s.\n", quoteAll(affects))
	}
	if len(globs) > 0 {
		fmt.Fprintf(&b, "- You may change files matching: %s.\n", quoteAll(globs))
	}
	if len(affects)+len(globs) > 0 {
		b.WriteString("- Changing any other file fails the scope gate.\n")
	}
	if len(never) > 0 {
		fmt.Fprintf(&b, "- You must not touch files matching: %s.\n", quoteAll(never))
	}
	b.WriteString("- Only a human changes this scope. Editing the task file changes nothing (and fails the gates); `git burl scope` run by you records a request a human decides on, and the task waits for it. If a file outside the scope seems needed, finish what you can within it, or revert your changes outside it.\n")
	return b.String()
}

// dependencies describes each depends_on task that is DONE: its title, the
// subjects of its commits on main and its Implementation Notes.
func dependencies(w *workflow.Workflow, t *task.Task) string {
	var b strings.Builder
	for _, id := range t.List(task.KeyDependsOn) {
		e, err := w.Get(id)
		if err != nil || e.Bucket != workflow.Done || e.Task == nil {
			continue
		}
		fmt.Fprintf(&b, "### %s: %s\n\n", id, e.Task.Title())
		if subjects := mainSubjects(w, id); len(subjects) > 0 {
			b.WriteString("Commits on main:\n")
			for _, s := range subjects {
				fmt.Fprintf(&b, "- %s\n", s)
			}
			b.WriteString("\n")
		}
		notes, _ := task.StripPlaceholders(e.Task.Section("Implementation Notes"))
		if notes = strings.TrimSpace(notes); notes != "" {
			b.WriteString("Implementation Notes:\n\n")
			b.WriteString(notes)
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// mainSubjects reads the range approve merged from the approve event.
func mainSubjects(w *workflow.Workflow, id string) []string {
	evs, _, err := events.Read(w.EventsDir(), events.Filter{Task: id, Action: "approve"})
	if err != nil || len(evs) == 0 {
		return nil
	}
	d := evs[len(evs)-1].Details
	base, _ := d["base"].(string)
	merged, _ := d["merged_sha"].(string)
	if base == "" || merged == "" {
		return nil
	}
	out, err := w.Repo.Git.Run("log", "--reverse", "--format=%s", base+".."+merged)
	if err != nil || strings.TrimSpace(out) == "" {
		return nil
	}
	return strings.Split(strings.TrimSpace(out), "\n")
}

func dotted(exts []string) []string {
	out := make([]string, len(exts))
	for i, e := range exts {
		out[i] = "." + e
	}
	return out
}

func quoteAll(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = "`" + x + "`"
	}
	return strings.Join(out, ", ")
}
