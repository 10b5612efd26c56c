package verb

import (
	"fmt"
	"io"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/scope"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/taskgate"
	"github.com/burl-dev/burl/pkg/workflow"
)

func overlap(a, b *task.Task) (bool, string) {
	return gate.Overlap(taskgate.Scope(a), taskgate.Scope(b))
}

// Scope is `git burl scope`: what cmd/git-burl-scope runs. Only the
// verbs a binary names are linked into it.
func Scope() cli.Command { return &scopeCmd{} }

// ScopeRequest is scope as an agent's tool offers it (the MCP server's
// scope_request): wherever it runs it only records a request, as scope
// does inside a watch run, and a human grants it with git burl scope.
func ScopeRequest() cli.Command { return &scopeCmd{requestOnly: true} }

type scopeCmd struct {
	cli.JSONFlag
	requestOnly  bool
	Affects      []string `long:"affects" value-name:"PATH" description:"Add a file (or directory ending in /) the task may change; repeatable"`
	AffectsGlobs []string `long:"affects-glob" value-name:"GLOB" description:"Add a glob of files the task may change or create; repeatable"`
	MustNotTouch []string `long:"must-not-touch" value-name:"GLOB" description:"Add a glob the task must not change; repeatable"`
	Remove       []string `long:"remove" value-name:"P" description:"Remove this path or glob from affects, affects_globs or must_not_touch; repeatable"`
	Reason       string   `long:"reason" short:"r" value-name:"TEXT" description:"Why the scope changes (required; recorded in the QA report)"`
	Grant        bool     `long:"grant" description:"Grant the task's open scope request: make the change its agent asked for"`
	Deny         string   `long:"deny" value-name:"REASON" description:"Refuse the task's open scope request, saying why (its agent reads it in its next prompt)"`
}

// scopeAnswerOut is --grant's or --deny's result.
type scopeAnswerOut struct {
	Task      map[string]any `json:"task"`
	Granted   bool           `json:"granted"`
	Request   string         `json:"request"`
	Change    scope.Change   `json:"change"`
	Unblocked bool           `json:"unblocked"`
	entry     workflow.Entry
}

func (o scopeAnswerOut) Human(w io.Writer) {
	if o.Granted {
		fmt.Fprintf(w, "Granted %s's scope request (%s)\n", o.entry.ID, o.Request)
		for _, l := range o.Change.Lines() {
			fmt.Fprintf(w, "  %s\n", l)
		}
	} else {
		fmt.Fprintf(w, "Refused %s's scope request (%s); its agent reads why in its next prompt\n", o.entry.ID, o.Request)
	}
	if o.Unblocked {
		fmt.Fprintf(w, "%s is back in READY: a watch gives it to its agent again\n", o.entry.ID)
	} else {
		fmt.Fprintf(w, "%s stays in %s\n", o.entry.ID, o.entry.Bucket)
	}
}

// answer is --grant / --deny: a human's answer, never an agent's.
func (c *scopeCmd) answer(ctx *cli.Context, id string) (cli.Output, error) {
	title := fmt.Sprintf("Cannot answer %s's scope request", id)
	if c.Grant && c.Deny != "" {
		return nil, usageErr("scope", "takes --grant or --deny, not both")
	}
	if len(c.Affects)+len(c.AffectsGlobs)+len(c.MustNotTouch)+len(c.Remove) > 0 || c.Reason != "" {
		return nil, usageErr("scope", "--grant and --deny answer the request as it was made: no other flag goes with them")
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	if c.requestOnly || w.Repo.InWatchRun() {
		return nil, errs.New(errs.User, "only a human answers a scope request, outside any watch run").WithTitle("%s", title).
			WithFix(`git burl scope %s --affects PATH --reason "why" asks for wider scope`, id)
	}
	got, err := scope.Answer{ID: id, Grant: c.Grant, Why: c.Deny}.Do(w)
	if err != nil {
		return nil, err
	}
	e := got.Result.Entry
	return scopeAnswerOut{Task: taskObject(w, e), Granted: c.Grant, Request: got.Request, Change: got.Change, Unblocked: got.Unblocked, entry: e}, nil
}

type scopeOut struct {
	Task   map[string]any `json:"task"`
	Change scope.Change   `json:"change"`
	// Requested: the change is a request recorded for a human, not made.
	Requested bool `json:"requested,omitempty"`
	entry     workflow.Entry
}

func (o scopeOut) Human(w io.Writer) {
	if o.Requested {
		fmt.Fprintf(w, "Scope of %s not changed: requested (a human answers it with git burl scope %s --grant or --deny):\n", o.entry.ID, o.entry.ID)
		for _, l := range o.Change.Lines() {
			fmt.Fprintf(w, "  %s\n", l)
		}
		return
	}
	fmt.Fprintf(w, "Scope of %s changed (%s):\n", o.entry.ID, o.entry.Bucket)
	for _, l := range o.Change.Lines() {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprintf(w, "Reason recorded in %s\n", o.Task["path"])
}

func (c *scopeCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "scope")
	if err != nil {
		return nil, err
	}
	if c.Grant || c.Deny != "" {
		return c.answer(ctx, id)
	}
	q := scope.Request{ID: id, Affects: c.Affects, AffectsGlobs: c.AffectsGlobs, MustNotTouch: c.MustNotTouch, Remove: c.Remove, Reason: c.Reason}
	if len(c.Affects)+len(c.AffectsGlobs)+len(c.MustNotTouch)+len(c.Remove) == 0 && strings.TrimSpace(c.Reason) != "" {
		return nil, usageErr("scope", "needs at least one of --affects, --affects-glob, --must-not-touch, --remove")
	}
	if err := q.Check(); err != nil {
		return nil, err
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	out, err := scope.Set(w, q, c.requestOnly)
	if err != nil {
		return nil, err
	}
	if c.requestOnly {
		var e workflow.Entry
		if out.Deferred {
			got, err := w.Get(id)
			if err != nil {
				return nil, err
			}
			e = *got
		} else {
			e = out.Result.Entry
		}
		return scopeOut{Task: taskObject(w, e), Change: out.Change, Requested: true, entry: e}, nil
	}
	if out.Asked {
		when := "is recorded as scope_request"
		if out.Deferred {
			when = "is recorded as scope_request when the run ends"
		}
		e, gerr := w.Get(id)
		base := "BASE"
		if gerr == nil {
			base = gitx.Short(e.Task.BaseSHA())
		}
		return nil, errs.New(errs.User, "inside a watch run git burl scope only asks: the request (%s) %s, the gates keep %s's current scope, and the task waits for a human to answer it with git burl scope %s --grant or --deny",
			strings.Join(out.Change.Lines(), "; "), when, id, id).WithTitle("Scope of %s not changed", id).
			WithFix("to go on now, revert the changes outside the scope in the worktree (git checkout %s -- FILE)", base)
	}
	return scopeOut{Task: taskObject(w, out.Result.Entry), Change: out.Change, entry: out.Result.Entry}, nil
}
