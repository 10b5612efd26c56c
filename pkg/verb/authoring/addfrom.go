package authoring

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/bulk"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/intake"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/workflow"
)

type addFromOut struct {
	Tasks  []map[string]any `json:"tasks"`
	lines  []string
	bucket workflow.Bucket
}

func (o addFromOut) Human(w io.Writer) {
	fmt.Fprintf(w, "Created %d task(s) in %s in one commit:\n", len(o.lines), o.bucket)
	for _, l := range o.lines {
		fmt.Fprintln(w, "  "+l)
	}
}

// addFrom is add --from FILE: every entry is checked as add checks its
// flags before anything is written; then all of them are written and
// committed with their add events in one workflow commit, or none.
func (c *addCmd) addFrom(ctx *cli.Context) (cli.Output, error) {
	if c.BodyFile != "" || c.Description != "" || len(c.AC)+len(c.Affects)+len(c.AffectsGlobs)+len(c.MustNotTouch)+len(c.DependsOn)+len(c.Tags) > 0 || c.Verify != "" {
		return nil, cli.UsageError("add", "takes the tasks' fields from the file with --from, not from flags")
	}
	var data []byte
	var err error
	if c.From == "-" {
		data, err = io.ReadAll(ctx.Stdin)
	} else {
		data, err = os.ReadFile(c.From)
	}
	if err != nil {
		return nil, errs.New(errs.User, "reading --from: %v", err).WithTitle("Cannot add the tasks").
			WithFix("give an existing YAML, JSON or markdown file, or - to read standard input")
	}
	entries, err := bulk.Parse(c.From, data)
	if err != nil {
		return nil, errs.New(errs.User, "%s: %v", c.From, err).WithTitle("Cannot add the tasks: nothing was added").
			WithFix("see git burl add --help and git-burl-add(1), ADDING MANY TASKS")
	}
	if len(entries) == 0 {
		return nil, errs.New(errs.User, "%s holds no task", c.From).WithTitle("Cannot add the tasks: nothing was added")
	}
	specs := make([]task.Spec, len(entries))
	titles := map[string]int{}
	for i, e := range entries {
		where := fmt.Sprintf("%s:%d: task %d: ", c.From, e.Line, i+1)
		if specs[i], err = intake.Check(e, where); err != nil {
			return nil, nothingAdded(err)
		}
		if j, dup := titles[strings.ToLower(specs[i].Title)]; dup {
			return nil, nothingAdded(errs.New(errs.User, "%stitle %q is task %d's too", where, specs[i].Title, j+1).
				WithFix("give each task its own title"))
		}
		titles[strings.ToLower(specs[i].Title)] = i
	}
	deps, err := bulk.Deps(entries)
	if err != nil {
		return nil, errs.New(errs.User, "%s: %v", c.From, err).WithTitle("Cannot add the tasks: nothing was added").
			WithFix("a task depends on another of the file by its id: or its title (see git-burl-add(1), ADDING MANY TASKS)")
	}
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	for i := range deps {
		for j, d := range deps[i] {
			if d.Local >= 0 {
				continue
			}
			id, err := intake.KnownDeps(w, []string{d.Ref}, nil)
			if err != nil {
				return nil, nothingAdded(err)
			}
			deps[i][j].Ref = id[0]
		}
	}
	prop, err := c.proposer(ctx, w)
	if err != nil {
		return nil, err
	}
	if prop != nil && prop.Out != "" {
		return nil, errs.New(errs.User, "a sandboxed watch run proposes one task at a time").WithTitle("Cannot propose the tasks: nothing was proposed").
			WithFix("git burl add \"TITLE\" for each task; watch records them in PROPOSED when the run ends")
	}
	made, err := createAll(w, specs, deps, prop)
	if err != nil {
		return nil, nothingAdded(errs.Wrap(err, errs.KindOf(err), "Cannot add the tasks"))
	}
	out := addFromOut{bucket: workflow.Ready}
	if prop != nil {
		out.bucket = workflow.Proposed
	}
	for _, e := range made {
		if granted, err := trust.Implicit(w.Repo, trust.Verify(e.Task, e.Path)...); err != nil {
			return nil, err
		} else if !granted && e.Task.Str(task.KeyVerify) != "" {
			ctx.Warnf("%s's verify is not trusted: it was added from inside a watch run; a person trusts it with git burl trust", e.ID)
		}
		out.Tasks = append(out.Tasks, verb.TaskObject(w, e))
		out.lines = append(out.lines, fmt.Sprintf("%s  %s", e.ID, cli.Escape(e.Task.Str(task.KeyTitle))))
	}
	return out, nil
}

// nothingAdded heads an entry's error so that it says nothing was added.
func nothingAdded(err error) error {
	var e *errs.Error
	if errors.As(err, &e) {
		c := *e
		return c.WithTitle("Cannot add the tasks: nothing was added")
	}
	return errs.Wrap(err, errs.KindOf(err), "Cannot add the tasks: nothing was added")
}

// createAll is create for many tasks: their IDs allocated in a row under
// the workflow lock, their files and add events in one commit. A
// dependency on another task of the batch (deps, as bulk.Deps resolved
// it) gets that task's ID once the batch's IDs are allocated.
// With prop they are proposed, in PROPOSED.
func createAll(w *workflow.Workflow, specs []task.Spec, deps [][]bulk.Dep, prop *intake.Proposer) ([]workflow.Entry, error) {
	in := workflow.Ready
	if prop != nil {
		in = workflow.Proposed
	}
	var made []workflow.Entry
	now := time.Now()
	err := w.Mutate("add", func(attempt int) (string, []string, error) {
		made = made[:0]
		ids, err := w.IDs()
		if err != nil {
			return "", nil, err
		}
		var paths []string
		var evs []events.Event
		undo := func() {
			for _, p := range paths {
				_ = os.Remove(p)
				_, _ = w.Repo.Git.Run("-C", w.Repo.Worktree, "reset", "-q", "--", p)
			}
		}
		batch := make([]string, len(specs))
		for i := range specs {
			batch[i] = task.NextID(ids)
			ids = append(ids, batch[i])
		}
		for i, spec := range specs {
			spec.Created = now
			spec.ID = batch[i]
			spec.DependsOn = nil
			for _, d := range deps[i] {
				if d.Local >= 0 {
					spec.DependsOn = append(spec.DependsOn, batch[d.Local])
				} else {
					spec.DependsOn = append(spec.DependsOn, d.Ref)
				}
			}
			t := task.New(spec)
			details := map[string]any{"title": spec.Title, "priority": t.Priority(), "batch": len(specs)}
			if prop != nil {
				t.SetStr(task.KeyProposedBy, prop.By)
				details["bucket"] = string(workflow.Proposed)
				details["proposed_by"] = prop.By
				if prop.From != "" {
					t.SetStr(task.KeyDiscoveredFrom, prop.From)
					details["discovered_from"] = prop.From
				}
			}
			p := filepath.Join(w.BucketDir(in), task.FileName(spec.ID, task.Slug(spec.Title)))
			if err := fsx.WriteFile(p, t.Bytes()); err != nil {
				undo()
				return "", nil, err
			}
			paths = append(paths, p)
			made = append(made, workflow.Entry{ID: spec.ID, Bucket: in, Path: p, Task: t})
			id := spec.ID
			if attempt > 1 {
				details["attempt"] = attempt
			}
			evs = append(evs, events.Event{TS: now.UTC(), Task: &id, Action: "add", Details: details})
		}
		summary := fmt.Sprintf("add %s..%s (%d tasks)", made[0].ID, made[len(made)-1].ID, len(made))
		sha, err := w.EventBatch(evs, summary, paths...)
		if err != nil {
			undo()
		}
		return sha, nil, err
	})
	return made, err
}
