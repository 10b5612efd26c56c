package verb

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/taskgate"
	"github.com/burl-dev/burl/pkg/workflow"
)

func overlap(a, b *task.Task) (bool, string) {
	return gate.Overlap(taskgate.Scope(a), taskgate.Scope(b))
}

// checkScopeArg checks one --affects path (glob false) or glob, as add and
// scope take them; title heads the error.
func checkScopeArg(flag, v string, glob bool, title string) error {
	if err := task.CheckRelPath(v); err != nil {
		if glob {
			return errs.New(errs.User, "%s: %v", flag, err).WithTitle("%s", title).
				WithFix("give globs relative to the repository root, e.g. %s 'src/player/**'", flag)
		}
		return errs.New(errs.User, "%s: %v", flag, err).WithTitle("%s", title).
			WithFix("give paths relative to the repository root, e.g. %s src/player/jump.go", flag)
	}
	if glob && !doublestar.ValidatePattern(v) {
		return errs.New(errs.User, "%s: %q is not a valid glob", flag, v).WithTitle("%s", title).
			WithFix("check the brackets and braces; globs use *, ** and ? (e.g. 'src/**/*.go')")
	}
	return nil
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
}

// scopeChange is what one scope command changes, key by key.
type scopeChange struct {
	Added   map[string][]string `json:"added"`
	Removed map[string][]string `json:"removed"`
}

type scopeOut struct {
	Task   map[string]any `json:"task"`
	Change scopeChange    `json:"change"`
	// Requested: the change is a request recorded for a human, not made.
	Requested bool `json:"requested,omitempty"`
	entry     workflow.Entry
}

func (o scopeOut) Human(w io.Writer) {
	if o.Requested {
		fmt.Fprintf(w, "Scope of %s not changed: requested (a human grants it with git burl scope):\n", o.entry.ID)
		for _, l := range o.Change.lines() {
			fmt.Fprintf(w, "  %s\n", l)
		}
		return
	}
	fmt.Fprintf(w, "Scope of %s changed (%s):\n", o.entry.ID, o.entry.Bucket)
	for _, l := range o.Change.lines() {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprintf(w, "Reason recorded in %s\n", o.Task["path"])
}

// lines is the change as the QA report and the human output show it.
func (c scopeChange) lines() []string {
	var out []string
	for _, k := range []string{task.KeyAffects, task.KeyAffectsGlobs, task.KeyMustNotTouch} {
		for _, v := range c.Added[k] {
			out = append(out, fmt.Sprintf("+ %s: %s", k, v))
		}
		for _, v := range c.Removed[k] {
			out = append(out, fmt.Sprintf("- %s: %s", k, v))
		}
	}
	return out
}

func (c *scopeCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "scope")
	if err != nil {
		return nil, err
	}
	const title = "Cannot change the scope"
	reason := strings.TrimSpace(c.Reason)
	if reason == "" {
		return nil, errs.New(errs.User, "git burl scope needs --reason: every scope change is explained in the task's QA report").
			WithTitle(title).WithFix(`git burl scope %s --affects PATH --reason "why the task needs it"`, id)
	}
	if len(c.Affects)+len(c.AffectsGlobs)+len(c.MustNotTouch)+len(c.Remove) == 0 {
		return nil, usageErr("scope", "needs at least one of --affects, --affects-glob, --must-not-touch, --remove")
	}
	adds := []struct {
		flag, key string
		vals      []string
		glob      bool
	}{
		{"--affects", task.KeyAffects, c.Affects, false},
		{"--affects-glob", task.KeyAffectsGlobs, c.AffectsGlobs, true},
		{"--must-not-touch", task.KeyMustNotTouch, c.MustNotTouch, true},
	}
	for _, a := range adds {
		for _, v := range a.vals {
			if err := checkScopeArg(a.flag, v, a.glob, title); err != nil {
				return nil, err
			}
		}
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	var change scopeChange
	// Inside a watch run the caller may be the agent itself: it asks, and a
	// human decides (DESIGN §15). Process ancestry decides, which an agent
	// cannot unset as it could an environment variable.
	request := c.requestOnly || osx.InWatchRun()
	verb := "scope"
	if request {
		verb = "scope_request"
	}
	res, err := w.Run(workflow.Transition{
		Verb: verb, ID: id, From: []workflow.Bucket{workflow.Ready, workflow.Doing, workflow.Blocked},
		Message: verb + " " + id,
		Apply: func(tx *workflow.Tx) error {
			t := tx.Task
			change = scopeChange{Added: map[string][]string{}, Removed: map[string][]string{}}
			lists := map[string][]string{}
			for _, a := range adds {
				lists[a.key] = t.List(a.key)
			}
			for _, p := range c.Remove {
				found := false
				for _, a := range adds {
					if i := slices.Index(lists[a.key], p); i >= 0 {
						lists[a.key] = slices.Delete(lists[a.key], i, i+1)
						change.Removed[a.key] = append(change.Removed[a.key], p)
						found = true
					}
				}
				if !found {
					return errs.New(errs.User, "--remove %s: %s has no such entry in affects, affects_globs or must_not_touch", p, id).
						WithTitle(title).WithFix("git burl show %s lists its scope", id)
				}
			}
			for _, a := range adds {
				for _, v := range a.vals {
					if !slices.Contains(lists[a.key], v) {
						lists[a.key] = append(lists[a.key], v)
						change.Added[a.key] = append(change.Added[a.key], v)
					}
				}
			}
			if len(change.lines()) == 0 {
				return errs.New(errs.User, "%s's scope already is what these flags ask for", id).
					WithTitle(title).WithFix("git burl show %s lists its scope", id)
			}
			heading := "Scope changed"
			if request {
				heading = "Scope requested (a human grants it with git burl scope)"
				t.SetStr(task.KeyScopeRequest, strings.Join(change.lines(), "; ")+" — "+oneLine(reason))
			} else {
				for _, a := range adds {
					if len(change.Added[a.key])+len(change.Removed[a.key]) > 0 {
						t.SetList(a.key, lists[a.key])
					}
				}
				t.SetNull(task.KeyScopeRequest)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "### %s — %s by %s\n\nReason: %s\n", heading, tx.Now.UTC().Format("2006-01-02T15:04:05Z"), w.Actor, oneLine(reason))
			for _, l := range change.lines() {
				fmt.Fprintf(&b, "- `%s`\n", l)
			}
			t.AppendToSection("QA Report", b.String())
			tx.Details["reason"] = reason
			tx.Details["added"] = change.Added
			tx.Details["removed"] = change.Removed
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	if c.requestOnly {
		return scopeOut{Task: taskObject(w, res.Entry), Change: change, Requested: true, entry: res.Entry}, nil
	}
	if request {
		return nil, errs.New(errs.User, "inside a watch run git burl scope only asks: the request (%s) is recorded as scope_request, the gates keep %s's current scope, and the task waits for a human to run git burl scope",
			strings.Join(change.lines(), "; "), id).WithTitle("Scope of %s not changed", id).
			WithFix("to go on now, revert the changes outside the scope in the worktree (git checkout %s -- FILE)", gitx.Short(res.Entry.Task.BaseSHA()))
	}
	return scopeOut{Task: taskObject(w, res.Entry), Change: change, entry: res.Entry}, nil
}
