package authoring

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/burl-dev/burl/pkg/bulk"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/intake"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Add is `git burl add`: what cmd/git-burl-add runs. Only the
// verbs a binary names are linked into it.
func Add() cli.Command { return &addCmd{} }

type addCmd struct {
	cli.JSONFlag
	Priority       string   `short:"p" long:"priority" value-name:"P" default:"medium" description:"Claim order: critical, high, medium or low"`
	Affects        []string `long:"affects" value-name:"PATH" description:"A file (or directory ending in /) the task may change; repeatable"`
	AffectsGlobs   []string `long:"affects-glob" value-name:"GLOB" description:"A glob of files the task may change or create, e.g. src/player/**; repeatable"`
	MustNotTouch   []string `long:"must-not-touch" value-name:"GLOB" description:"A glob the task must not change; repeatable"`
	DependsOn      []string `long:"depends-on" value-name:"ID" description:"A task that must be DONE before this one can be claimed; repeatable"`
	Tags           []string `long:"tags" value-name:"TAG" description:"Free-form tags (comma-separated or repeated)"`
	Verify         string   `long:"verify" value-name:"CMD" description:"Extra command validate runs in the task worktree (after build_command)"`
	BodyFile       string   `long:"body-file" value-name:"FILE" description:"Markdown body of the task ('-' reads standard input)"`
	Description    string   `long:"description" value-name:"TEXT" description:"What done looks like: the body's Objective, instead of the template's placeholder"`
	AC             []string `long:"ac" value-name:"TEXT" description:"An acceptance criterion (the body's checklist); repeatable"`
	Propose        bool     `long:"propose" description:"Propose the task instead: it waits in PROPOSED, which no agent claims, until a human runs git burl accept (inside a watch run every add proposes)"`
	DiscoveredFrom string   `long:"discovered-from" value-name:"ID" description:"With --propose: the task whose work showed this one is needed (default: the task whose worktree you are in)"`
	From           string   `long:"from" value-name:"FILE" description:"Add every task of FILE in one commit, all or none: a YAML or JSON list, or markdown with one '## title' section per task ('-' reads standard input)"`
}

type addOut struct {
	Task   map[string]any `json:"task"`
	id     string
	path   string
	bucket workflow.Bucket
	from   string
}

func (o addOut) Human(w io.Writer) {
	if o.bucket != workflow.Proposed {
		fmt.Fprintf(w, "Created %s in READY: %s\n", o.id, o.path)
		return
	}
	fmt.Fprintf(w, "Proposed %s in PROPOSED: %s\n", o.id, o.path)
	if o.from != "" {
		fmt.Fprintf(w, "discovered from %s\n", o.from)
	}
	fmt.Fprintf(w, "No agent claims it until a human accepts it: git burl accept %s\n", o.id)
}

// deferredOut is a proposal made inside a sandboxed run, which cannot
// write the workflow: watch records it in PROPOSED when the run ends.
type deferredOut struct {
	Proposed deferredTask `json:"proposed"`
	Deferred bool         `json:"deferred"`
}

type deferredTask struct {
	Title          string `json:"title"`
	DiscoveredFrom string `json:"discovered_from"`
}

func (o deferredOut) Human(w io.Writer) {
	fmt.Fprintf(w, "Proposed %q, discovered from %s: watch records it in PROPOSED when this run ends, and a human accepts it (git burl accept)\n", o.Proposed.Title, o.Proposed.DiscoveredFrom)
}

func (c *addCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if c.From != "" {
		if len(args) > 0 {
			return nil, cli.UsageError("add", "takes no TITLE with --from: the file holds the titles")
		}
		return c.addFrom(ctx)
	}
	if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
		return nil, cli.UsageError("add", "expects one non-empty TITLE (quote it)")
	}
	if c.BodyFile != "" && (c.Description != "" || len(c.AC) > 0) {
		return nil, cli.UsageError("add", "takes either --body-file or --description/--ac, not both")
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
	spec, err := intake.Check(in, "--")
	if err != nil {
		return nil, err
	}
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	if spec.DependsOn, err = intake.KnownDeps(w, spec.DependsOn, nil); err != nil {
		return nil, err
	}
	prop, err := c.proposer(ctx, w)
	if err != nil {
		return nil, err
	}
	bucket, by, from := workflow.Ready, "", ""
	if prop != nil {
		if prop.Out != "" {
			if err := prop.Defer(in); err != nil {
				return nil, errs.Wrap(err, errs.User, "Cannot propose the task")
			}
			return deferredOut{Proposed: deferredTask{Title: spec.Title, DiscoveredFrom: prop.From}, Deferred: true}, nil
		}
		bucket, by, from = workflow.Proposed, prop.By, prop.From
	}
	e, err := intake.Create(w, spec, bucket, by, from)
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
	return addOut{Task: verb.TaskObject(w, *e), id: e.ID, path: w.Rel(e.Path), bucket: e.Bucket, from: from}, nil
}

// proposer is who proposes the task, or nil when it is added to READY.
func (c *addCmd) proposer(ctx *cli.Context, w *workflow.Workflow) (*intake.Proposer, error) {
	if c.DiscoveredFrom != "" && !c.Propose && !w.Repo.InWatchRun() {
		return nil, cli.UsageError("add", "takes --discovered-from with --propose only")
	}
	return intake.Proposing(w, c.Propose, c.DiscoveredFrom, ctx.Dir)
}
