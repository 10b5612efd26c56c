package verb

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/bulk"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/scope"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Add is `git burl add`: what cmd/git-burl-add runs. Only the
// verbs a binary names are linked into it.
func Add() cli.Command { return &addCmd{} }

type addCmd struct {
	cli.JSONFlag
	Priority     string   `short:"p" long:"priority" value-name:"P" default:"medium" description:"Claim order: critical, high, medium or low"`
	Affects      []string `long:"affects" value-name:"PATH" description:"A file (or directory ending in /) the task may change; repeatable"`
	AffectsGlobs []string `long:"affects-glob" value-name:"GLOB" description:"A glob of files the task may change or create, e.g. src/player/**; repeatable"`
	MustNotTouch []string `long:"must-not-touch" value-name:"GLOB" description:"A glob the task must not change; repeatable"`
	DependsOn    []string `long:"depends-on" value-name:"ID" description:"A task that must be DONE before this one can be claimed; repeatable"`
	Tags         []string `long:"tags" value-name:"TAG" description:"Free-form tags (comma-separated or repeated)"`
	Verify       string   `long:"verify" value-name:"CMD" description:"Extra command validate runs in the task worktree (after build_command)"`
	BodyFile     string   `long:"body-file" value-name:"FILE" description:"Markdown body of the task ('-' reads standard input)"`
	Description  string   `long:"description" value-name:"TEXT" description:"What done looks like: the body's Objective, instead of the template's placeholder"`
	AC           []string `long:"ac" value-name:"TEXT" description:"An acceptance criterion (the body's checklist); repeatable"`
	From         string   `long:"from" value-name:"FILE" description:"Add every task of FILE in one commit, all or none: a YAML or JSON list, or markdown with one '## title' section per task ('-' reads standard input)"`
}

type addOut struct {
	Task map[string]any `json:"task"`
	id   string
	path string
}

func (o addOut) Human(w io.Writer) {
	fmt.Fprintf(w, "Created %s in READY: %s\n", o.id, o.path)
}

func (c *addCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if c.From != "" {
		if len(args) > 0 {
			return nil, usageErr("add", "takes no TITLE with --from: the file holds the titles")
		}
		return c.addFrom(ctx)
	}
	if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
		return nil, usageErr("add", "expects one non-empty TITLE (quote it)")
	}
	if c.BodyFile != "" && (c.Description != "" || len(c.AC) > 0) {
		return nil, usageErr("add", "takes either --body-file or --description/--ac, not both")
	}
	in := bulk.Entry{Title: args[0], Priority: c.Priority, Affects: c.Affects, AffectsGlobs: c.AffectsGlobs,
		MustNotTouch: c.MustNotTouch, DependsOn: c.DependsOn, Tags: c.Tags, Verify: c.Verify, Description: c.Description, AC: c.AC}
	if c.BodyFile != "" {
		var data []byte
		var err error
		if c.BodyFile == "-" {
			data, err = io.ReadAll(ctx.Stdin)
		} else {
			data, err = os.ReadFile(c.BodyFile)
		}
		if err != nil {
			return nil, errs.New(errs.User, "reading --body-file: %v", err).WithTitle("Cannot add the task").
				WithFix("give an existing markdown file, or - to read the body from standard input")
		}
		in.Body = string(data)
	}
	spec, err := specOf(in, "--")
	if err != nil {
		return nil, err
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	if spec.DependsOn, err = knownDeps(w, spec.DependsOn, nil); err != nil {
		return nil, err
	}
	e, err := create(w, spec)
	if err != nil {
		return nil, errs.Wrap(err, errs.KindOf(err), "Cannot add the task")
	}
	// A verify typed on burl's own command line is the user's: trusted as
	// given. Inside a watch run the "user" may be an agent, and a person
	// trusts it with git burl trust.
	if granted, err := trust.Implicit(w.Repo, trust.Verify(e.Task, e.Path)...); err != nil {
		return nil, err
	} else if !granted && spec.Verify != "" {
		ctx.Warnf("%s's --verify is not trusted: it was added from inside a watch run; a person trusts it with git burl trust", e.ID)
	}
	if len(spec.Affects)+len(spec.AffectsGlobs) == 0 {
		// The scope gate allows nothing outside affects/affects_globs.
		ctx.Warnf("%s has no --affects or --affects-glob, so any change it makes fails the scope gate; give it a scope with git burl scope %s --affects-glob 'GLOB' --reason \"...\"", e.ID, e.ID)
	}
	return addOut{Task: taskObject(w, *e), id: e.ID, path: w.Rel(e.Path)}, nil
}

// specOf checks one task as add takes it, flags or an entry of --from
// (flag prefixes the key names in messages: "--" or "entry 3: "), and
// builds its spec; depends_on is checked against the workflow later.
func specOf(in bulk.Entry, flag string) (task.Spec, error) {
	title := strings.TrimSpace(in.Title)
	name := func(k string) string {
		if flag == "--" {
			return "--" + k
		}
		return flag + strings.ReplaceAll(k, "-", "_")
	}
	if title == "" {
		return task.Spec{}, errs.New(errs.User, "%stitle is empty", strings.TrimSuffix(flag, "--")).WithTitle("Cannot add the task").WithFix("give every task a one-line title")
	}
	if strings.ContainsAny(title, "\n\r") {
		return task.Spec{}, errs.New(errs.User, "%sthe title must be one line", strings.TrimSuffix(flag, "--")).WithTitle("Cannot add the task").WithFix("put details in the body: --body-file FILE")
	}
	priority := in.Priority
	if priority == "" {
		priority = "medium"
	}
	if task.PriorityRank(priority) == len(task.Priorities) {
		return task.Spec{}, errs.New(errs.User, "%s %q is not one of %s", name("priority"), priority, strings.Join(task.Priorities, ", "))
	}
	spec := task.Spec{Title: title, Priority: priority, Verify: in.Verify}
	for _, p := range in.Affects {
		if err := scope.CheckArg(name("affects"), p, false, "Cannot add the task"); err != nil {
			return task.Spec{}, err
		}
		spec.Affects = append(spec.Affects, p)
	}
	for _, list := range []struct {
		flag string
		in   []string
		out  *[]string
	}{{name("affects-glob"), in.AffectsGlobs, &spec.AffectsGlobs}, {name("must-not-touch"), in.MustNotTouch, &spec.MustNotTouch}} {
		for _, g := range list.in {
			if err := scope.CheckArg(list.flag, g, true, "Cannot add the task"); err != nil {
				return task.Spec{}, err
			}
			*list.out = append(*list.out, g)
		}
	}
	for _, t := range in.Tags {
		for _, part := range strings.Split(t, ",") {
			if part = strings.TrimSpace(part); part != "" {
				spec.Tags = append(spec.Tags, part)
			}
		}
	}
	if in.Body != "" && (in.Description != "" || len(in.AC) > 0) {
		return task.Spec{}, errs.New(errs.User, "%sa body and a description or acceptance criteria: give one or the other", strings.TrimSuffix(flag, "--")).WithTitle("Cannot add the task")
	}
	if in.Description != "" || len(in.AC) > 0 {
		spec.Body = task.BodyFrom(in.Description, in.AC)
	}
	if in.Body != "" {
		spec.Body = strings.ReplaceAll(in.Body, "\r\n", "\n")
	}
	spec.DependsOn = in.DependsOn
	return spec, nil
}

// knownDeps normalises dependencies and checks each is a task of the
// workflow or one of planned (IDs an add --from is about to create).
func knownDeps(w *workflow.Workflow, deps []string, planned map[string]bool) ([]string, error) {
	var out []string
	for _, d := range deps {
		id, err := task.NormalizeID(d)
		if err != nil {
			e := errs.Wrap(err, errs.User, "Cannot add the task")
			e.Reason = "--depends-on: " + e.Reason
			return nil, e
		}
		if !planned[id] {
			if found, err := w.Locate(id); err != nil {
				return nil, err
			} else if len(found) == 0 {
				return nil, errs.New(errs.User, "--depends-on %s: no such task", id).WithTitle("Cannot add the task").
					WithFix("git burl status lists the tasks")
			}
		}
		out = append(out, id)
	}
	return out, nil
}

// create allocates the next ID under the workflow lock, so concurrent adds
// never share an ID, and commits the new file. With workflow_auto_push an
// ID taken meanwhile on another machine is noticed at push time: the add is
// redone with the next free ID (the loser renumbers).
func create(w *workflow.Workflow, spec task.Spec) (*workflow.Entry, error) {
	var e *workflow.Entry
	spec.Created = time.Now()
	err := w.Mutate("add", func(attempt int) (string, []string, error) {
		ids, err := w.IDs()
		if err != nil {
			return "", nil, err
		}
		spec.ID = task.NextID(ids)
		t := task.New(spec)
		p := filepath.Join(w.BucketDir(workflow.Ready), task.FileName(spec.ID, task.Slug(spec.Title)))
		if err := fsx.WriteFile(p, t.Bytes()); err != nil {
			return "", nil, err
		}
		e = &workflow.Entry{ID: spec.ID, Bucket: workflow.Ready, Path: p, Task: t}
		details := map[string]any{"title": spec.Title, "priority": t.Priority()}
		if attempt > 1 {
			details["attempt"] = attempt
		}
		sha, err := w.Event("add", spec.ID, details, "add "+spec.ID+" "+spec.Title, p)
		if err != nil {
			// Never leave an uncommitted task file a later commit would sweep in.
			_ = os.Remove(p)
			_, _ = w.Repo.Git.Run("-C", w.Repo.Worktree, "reset", "-q", "--", p)
		}
		return sha, nil, err
	})
	return e, err
}
