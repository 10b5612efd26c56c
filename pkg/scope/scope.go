// Package scope changes a task's scope after claim (DESIGN §15): the one
// way to do it, for the scope verb, for watch (a request an agent left in
// its run's out folder) and for MCP. A human's change is granted; inside a
// watch run it is only asked for (scope_request), and a human decides.
package scope

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Title heads scope's errors.
const Title = "Cannot change the scope"

// Request is one scope change as asked for: the flags of git burl scope.
type Request struct {
	ID           string   `json:"id"`
	Affects      []string `json:"affects,omitempty"`
	AffectsGlobs []string `json:"affects_globs,omitempty"`
	MustNotTouch []string `json:"must_not_touch,omitempty"`
	Remove       []string `json:"remove,omitempty"`
	Reason       string   `json:"reason"`
}

// Change is what one request changes, key by key.
type Change struct {
	Added   map[string][]string `json:"added"`
	Removed map[string][]string `json:"removed"`
}

// Lines is the change as the QA report and the human output show it.
func (c Change) Lines() []string {
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

// CheckArg checks one --affects path (glob false) or glob, as add and
// scope take them; title heads the error.
func CheckArg(flag, v string, glob bool, title string) error {
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

type addition struct {
	flag, key string
	vals      []string
	glob      bool
}

func (q Request) additions() []addition {
	return []addition{
		{"--affects", task.KeyAffects, q.Affects, false},
		{"--affects-glob", task.KeyAffectsGlobs, q.AffectsGlobs, true},
		{"--must-not-touch", task.KeyMustNotTouch, q.MustNotTouch, true},
	}
}

// Check validates a request as the command line is validated.
func (q Request) Check() error {
	if strings.TrimSpace(q.Reason) == "" {
		return errs.New(errs.User, "git burl scope needs --reason: every scope change is explained in the task's QA report").
			WithTitle(Title).WithFix(`git burl scope %s --affects PATH --reason "why the task needs it"`, q.ID)
	}
	if len(q.Affects)+len(q.AffectsGlobs)+len(q.MustNotTouch)+len(q.Remove) == 0 {
		return errs.New(errs.User, "git burl scope needs at least one of --affects, --affects-glob, --must-not-touch, --remove").
			WithTitle(Title).WithFix(`git burl scope %s --affects PATH --reason "why the task needs it"`, q.ID)
	}
	for _, a := range q.additions() {
		for _, v := range a.vals {
			if err := CheckArg(a.flag, v, a.glob, Title); err != nil {
				return err
			}
		}
	}
	return nil
}

// plan is what q changes in t, and the scope lists after it.
func (q Request) plan(t *task.Task) (Change, map[string][]string, error) {
	change := Change{Added: map[string][]string{}, Removed: map[string][]string{}}
	lists := map[string][]string{}
	adds := q.additions()
	for _, a := range adds {
		lists[a.key] = t.List(a.key)
	}
	for _, p := range q.Remove {
		found := false
		for _, a := range adds {
			if i := slices.Index(lists[a.key], p); i >= 0 {
				lists[a.key] = slices.Delete(lists[a.key], i, i+1)
				change.Removed[a.key] = append(change.Removed[a.key], p)
				found = true
			}
		}
		if !found {
			return change, nil, errs.New(errs.User, "--remove %s: %s has no such entry in affects, affects_globs or must_not_touch", p, q.ID).
				WithTitle(Title).WithFix("git burl show %s lists its scope", q.ID)
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
	if len(change.Lines()) == 0 {
		return change, nil, errs.New(errs.User, "%s's scope already is what these flags ask for", q.ID).
			WithTitle(Title).WithFix("git burl show %s lists its scope", q.ID)
	}
	return change, lists, nil
}

// Apply changes the task's scope (event scope), or with ask only records
// the request (event scope_request: the gates keep the old scope, the
// task's scope_request field names what waits for a human).
func Apply(w *workflow.Workflow, q Request, ask bool) (Change, *workflow.Result, error) {
	if err := q.Check(); err != nil {
		return Change{}, nil, err
	}
	verb := "scope"
	if ask {
		verb = "scope_request"
	}
	var change Change
	res, err := w.Run(workflow.Transition{
		Verb: verb, ID: q.ID, From: []workflow.Bucket{workflow.Ready, workflow.Doing, workflow.Blocked, workflow.Proposed},
		Message: verb + " " + q.ID,
		Apply: func(tx *workflow.Tx) error {
			t := tx.Task
			var lists map[string][]string
			var err error
			if change, lists, err = q.plan(t); err != nil {
				return err
			}
			heading := "Scope changed"
			reason := strings.Join(strings.Fields(q.Reason), " ")
			if ask {
				heading = "Scope requested (a human answers it with git burl scope " + q.ID + " --grant or --deny)"
				t.SetStr(task.KeyScopeRequest, strings.Join(change.Lines(), "; ")+" — "+reason)
			} else {
				for _, a := range q.additions() {
					if len(change.Added[a.key])+len(change.Removed[a.key]) > 0 {
						t.SetList(a.key, lists[a.key])
					}
				}
				t.SetNull(task.KeyScopeRequest)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "### %s — %s by %s\n\nReason: %s\n", heading, tx.Now.UTC().Format("2006-01-02T15:04:05Z"), w.Actor, reason)
			for _, l := range change.Lines() {
				fmt.Fprintf(&b, "- `%s`\n", l)
			}
			t.AppendToSection("QA Report", b.String())
			tx.Details["reason"] = q.Reason
			tx.Details["added"] = change.Added
			tx.Details["removed"] = change.Removed
			return nil
		},
	})
	return change, res, err
}

// Outcome is what Set did.
type Outcome struct {
	Change Change
	// Asked: inside a watch run, only a request was made; Deferred: it
	// is recorded when the run ends (a sandboxed run cannot write the
	// workflow), else it is recorded now.
	Asked, Deferred bool
	Result          *workflow.Result
}

// Set is git burl scope: granted for a human; inside a watch run
// (DESIGN §15, §19: decided by what the agent cannot unset), or when ask
// (an agent's tool), only asked for, and in a sandboxed run, whose
// workflow is read-only, left as a request in the run's out folder for
// watch to record after the run.
func Set(w *workflow.Workflow, q Request, ask bool) (Outcome, error) {
	if err := q.Check(); err != nil {
		return Outcome{}, err
	}
	if !ask && !w.Repo.InWatchRun() {
		c, res, err := Apply(w, q, false)
		return Outcome{Change: c, Result: res}, err
	}
	info, ok := sandbox.Active(w.Repo)
	if !ok {
		c, res, err := Apply(w, q, true)
		return Outcome{Change: c, Asked: true, Result: res}, err
	}
	if q.ID != info.Task {
		return Outcome{}, errs.New(errs.User, "inside the watch run of %s git burl scope asks only for %s's scope", info.Task, info.Task).
			WithTitle(Title).WithFix(`git burl scope %s ... --reason "why"`, info.Task)
	}
	e, err := w.Get(q.ID)
	if err != nil {
		return Outcome{}, err
	}
	c, _, err := q.plan(e.Task)
	if err != nil {
		return Outcome{}, err
	}
	data, _ := json.Marshal(q)
	name := fmt.Sprintf("%s%d.json", requestPrefix, time.Now().UnixNano())
	if err := os.WriteFile(filepath.Join(info.Out, name), data, 0o644); err != nil {
		return Outcome{}, err
	}
	return Outcome{Change: c, Asked: true, Deferred: true}, nil
}

const requestPrefix = "scope-request-"

// maxRequest bounds one request file.
const maxRequest = 1 << 20

// Requests are the scope requests a run left in its out folder, in the
// order it made them. A file that is not a request is named in bad.
func Requests(out string) (reqs []Request, bad []string) {
	d, err := osx.OpenInside(out, ".", true)
	if err != nil {
		return nil, nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	slices.Sort(names)
	for _, n := range names {
		if !strings.HasPrefix(n, requestPrefix) {
			continue
		}
		q, err := readRequest(out, n)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", n, err))
			continue
		}
		reqs = append(reqs, q)
	}
	return reqs, bad
}

func readRequest(dir, name string) (Request, error) {
	var q Request
	data, err := osx.ReadInside(dir, name, maxRequest)
	if err != nil {
		return q, err
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	err = dec.Decode(&q)
	return q, err
}
