package authoring

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Edit is `git burl edit`: what cmd/git-burl-edit runs. Only the verbs a
// binary names are linked into it.
func Edit() cli.Command { return &editCmd{} }

type editCmd struct {
	cli.JSONFlag
	Title           string   `long:"title" value-name:"TEXT" description:"New title (one line)"`
	Description     *string  `long:"description" value-name:"TEXT" description:"Replace the body's Objective"`
	AC              []string `long:"ac" value-name:"TEXT" description:"Replace the acceptance criteria with these; repeatable"`
	AddAC           []string `long:"add-ac" value-name:"TEXT" description:"Add an acceptance criterion; repeatable"`
	Priority        string   `short:"p" long:"priority" value-name:"P" description:"Claim order: critical, high, medium or low"`
	Tags            []string `long:"tags" value-name:"TAG" description:"Replace the tags (comma-separated or repeated)"`
	AddTag          []string `long:"add-tag" value-name:"TAG" description:"Add a tag; repeatable"`
	RemoveTag       []string `long:"remove-tag" value-name:"TAG" description:"Remove a tag; repeatable"`
	DependsOn       []string `long:"depends-on" value-name:"ID" description:"Add a dependency (a task that must be DONE first); repeatable"`
	RemoveDependsOn []string `long:"remove-depends-on" value-name:"ID" description:"Remove a dependency; repeatable"`
	MaxCostUSD      *float64 `long:"max-cost-usd" value-name:"USD" description:"Cap what agent runs on the task may spend (0 removes the cap)"`
	Editor          bool     `long:"editor" description:"Edit these fields in your editor (git's: GIT_EDITOR, core.editor, VISUAL, EDITOR); checked on save, and an edit that does not apply is kept for the next --editor"`
	// Scope is a gate input: changed only by git burl scope, which
	// records why (DESIGN §15). Named here to be refused by name.
	Affects      []string `long:"affects" hidden:"true"`
	AffectsGlobs []string `long:"affects-glob" hidden:"true"`
	MustNotTouch []string `long:"must-not-touch" hidden:"true"`
}

// editChange is one field edit edit made, as --json and the event say.
type editChange struct {
	Field string `json:"field"`
	From  any    `json:"from"`
	To    any    `json:"to"`
}

type editOut struct {
	Task    map[string]any `json:"task"`
	Changes []editChange   `json:"changes"`
	id      string
}

func (o editOut) Human(w io.Writer) {
	if len(o.Changes) == 0 {
		fmt.Fprintf(w, "Nothing changed: %s is as it was\n", o.id)
		return
	}
	fmt.Fprintf(w, "Edited %s:\n", o.id)
	for _, c := range o.Changes {
		fmt.Fprintf(w, "  %s: %s → %s\n", c.Field, cli.Escape(show(c.From)), cli.Escape(show(c.To)))
	}
}

func show(v any) string {
	switch x := v.(type) {
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	case nil:
		return "(none)"
	case string:
		if x == "" {
			return "(none)"
		}
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}

func splitTags(in []string) []string {
	var out []string
	for _, t := range in {
		for _, p := range strings.Split(t, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// Run edits what a human may change of a task that is not DONE: title,
// description, acceptance criteria, priority, tags, dependencies and
// budget. Dependencies are checked as add checks them, and for cycles.
func (c *editCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := verb.TaskArg(args, "edit")
	if err != nil {
		return nil, err
	}
	const title = "Cannot edit the task"
	if c.Editor {
		if c.Title != "" || c.Description != nil || len(c.AC)+len(c.AddAC)+len(c.Tags)+len(c.AddTag)+len(c.RemoveTag)+len(c.DependsOn)+len(c.RemoveDependsOn) > 0 || c.Priority != "" || c.MaxCostUSD != nil {
			return nil, cli.UsageError("edit", "takes the fields from the editor with --editor, not from flags")
		}
		w, err := verb.Open(ctx)
		if err != nil {
			return nil, err
		}
		changed, err := c.fromEditor(ctx, w, id)
		if err != nil {
			return nil, err
		}
		if !changed {
			e, err := w.Get(id)
			if err != nil {
				return nil, err
			}
			return editOut{Task: verb.TaskObject(w, *e), Changes: []editChange{}, id: id}, nil
		}
	}
	if len(c.Affects)+len(c.AffectsGlobs)+len(c.MustNotTouch) > 0 {
		return nil, errs.New(errs.User, "edit does not change the scope (affects, affects_globs, must_not_touch): a gate input changes only with a reason on record").
			WithTitle(title).WithFix(`git burl scope %s --affects PATH --reason "why the task needs it"`, id)
	}
	if strings.ContainsAny(c.Title, "\n\r") {
		return nil, errs.New(errs.User, "the title must be one line").WithTitle(title).WithFix("put details in --description")
	}
	if c.Priority != "" && task.PriorityRank(c.Priority) == len(task.Priorities) {
		return nil, errs.New(errs.User, "--priority %q is not one of %s", c.Priority, strings.Join(task.Priorities, ", ")).WithTitle(title)
	}
	if c.MaxCostUSD != nil && *c.MaxCostUSD < 0 {
		return nil, errs.New(errs.User, "--max-cost-usd must be 0 (no cap) or more").WithTitle(title)
	}
	if len(c.AC) > 0 && len(c.AddAC) > 0 {
		return nil, cli.UsageError("edit", "takes either --ac (replace) or --add-ac (add), not both")
	}
	var addDeps, dropDeps []string
	for _, list := range []struct {
		in  []string
		out *[]string
	}{{c.DependsOn, &addDeps}, {c.RemoveDependsOn, &dropDeps}} {
		for _, d := range list.in {
			n, err := task.NormalizeID(d)
			if err != nil {
				return nil, errs.Wrap(err, errs.User, title)
			}
			*list.out = append(*list.out, n)
		}
	}
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range addDeps {
		if err := checkDependency(w, id, d); err != nil {
			return nil, errs.Wrap(err, errs.KindOf(err), title)
		}
	}
	var changes []editChange
	res, err := w.Run(workflow.Transition{
		Verb: "edit", ID: id, From: []workflow.Bucket{workflow.Ready, workflow.Doing, workflow.QA, workflow.Blocked, workflow.Proposed},
		Message: "edit " + id,
		Apply: func(tx *workflow.Tx) error {
			t := tx.Task
			changes = nil
			note := func(field string, from, to any) {
				changes = append(changes, editChange{Field: field, From: from, To: to})
			}
			if v := strings.TrimSpace(c.Title); v != "" && v != t.Title() {
				note(task.KeyTitle, t.Title(), v)
				t.SetStr(task.KeyTitle, v)
			}
			if c.Priority != "" && c.Priority != t.Priority() {
				note(task.KeyPriority, t.Priority(), c.Priority)
				t.SetStr(task.KeyPriority, c.Priority)
			}
			tags := t.List(task.KeyTags)
			newTags := slices.Clone(tags)
			if len(c.Tags) > 0 {
				newTags = splitTags(c.Tags)
			}
			for _, a := range splitTags(c.AddTag) {
				if !slices.Contains(newTags, a) {
					newTags = append(newTags, a)
				}
			}
			for _, r := range splitTags(c.RemoveTag) {
				newTags = slices.DeleteFunc(newTags, func(s string) bool { return s == r })
			}
			if !slices.Equal(tags, newTags) {
				note(task.KeyTags, tags, newTags)
				t.SetList(task.KeyTags, newTags)
			}
			deps := t.List(task.KeyDependsOn)
			if len(addDeps)+len(dropDeps) > 0 && (tx.Entry.Bucket == workflow.Doing || tx.Entry.Bucket == workflow.QA) {
				// After claim depends_on is a gate input (DESIGN §15):
				// what was claimed is what is gated.
				return errs.New(errs.User, "%s is in %s: its dependencies were settled when it was claimed", id, tx.Entry.Bucket).
					WithFix("git burl release %s (or reject it), then edit its dependencies in READY", id)
			}
			newDeps := slices.Clone(deps)
			for _, r := range dropDeps {
				if !slices.Contains(newDeps, r) {
					return errs.New(errs.User, "--remove-depends-on %s: %s does not depend on it", r, id).WithFix("git burl show %s lists its depends_on", id)
				}
				newDeps = slices.DeleteFunc(newDeps, func(s string) bool { return s == r })
			}
			for _, a := range addDeps {
				if !slices.Contains(newDeps, a) {
					newDeps = append(newDeps, a)
				}
			}
			if !slices.Equal(deps, newDeps) {
				note(task.KeyDependsOn, deps, newDeps)
				t.SetList(task.KeyDependsOn, newDeps)
			}
			if c.MaxCostUSD != nil && *c.MaxCostUSD != t.MaxCostUSD() {
				var from, to any = t.MaxCostUSD(), *c.MaxCostUSD
				if t.MaxCostUSD() == 0 {
					from = nil
				}
				if *c.MaxCostUSD == 0 {
					to = nil
					t.SetNull(task.KeyMaxCostUSD)
				} else {
					t.SetFloat(task.KeyMaxCostUSD, *c.MaxCostUSD)
				}
				note(task.KeyMaxCostUSD, from, to)
			}
			if c.Description != nil {
				from := strings.TrimSpace(t.Section("Objective"))
				if to := strings.TrimSpace(*c.Description); to != from {
					t.ReplaceSection("Objective", to)
					note("description", from, to)
				}
			}
			if len(c.AC)+len(c.AddAC) > 0 {
				from := criteria(t)
				to := slices.Clone(from)
				if len(c.AC) > 0 {
					to = nil
				}
				for _, a := range append(slices.Clone(c.AC), c.AddAC...) {
					if a = strings.TrimSpace(a); a != "" {
						to = append(to, a)
					}
				}
				if !slices.Equal(from, to) {
					var b strings.Builder
					for _, a := range to {
						fmt.Fprintf(&b, "- [ ] %s\n", a)
					}
					if len(c.AC) == 0 {
						// Added: the criteria already there stay as written
						// (checked boxes, notes between them).
						b.Reset()
						b.WriteString(strings.TrimRight(t.Section("Acceptance Criteria"), "\n") + "\n")
						for _, a := range to[len(from):] {
							fmt.Fprintf(&b, "- [ ] %s\n", a)
						}
					}
					t.ReplaceSection("Acceptance Criteria", strings.TrimLeft(b.String(), "\n"))
					note("acceptance_criteria", from, to)
				}
			}
			if len(changes) == 0 {
				return errs.New(errs.User, "nothing to change: %s already is what these flags ask for", id).
					WithFix("git burl edit --help lists what edit changes; git burl show %s shows the task", id)
			}
			tx.Details["changes"] = changes
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	return editOut{Task: verb.TaskObject(w, res.Entry), Changes: changes, id: id}, nil
}

// criteria are the acceptance criteria of t's checklist, without their
// boxes and without the template's placeholder.
func criteria(t *task.Task) []string {
	var out []string
	for _, l := range strings.Split(t.Section("Acceptance Criteria"), "\n") {
		l = strings.TrimSpace(strings.TrimRight(l, "\r"))
		if rest, ok := strings.CutPrefix(l, "- ["); ok && len(rest) > 2 && rest[1] == ']' {
			if c := strings.TrimSpace(rest[2:]); c != "" && c != "Criterion 1 (specific, verifiable)" {
				out = append(out, c)
			}
		}
	}
	return out
}

// checkDependency refuses a dependency add would refuse (no such task),
// one that never lands (cancelled), and one that closes a cycle.
func checkDependency(w *workflow.Workflow, id, dep string) error {
	if dep == id {
		return errs.New(errs.User, "--depends-on %s: a task cannot depend on itself", dep)
	}
	e, err := w.Get(dep)
	if err != nil {
		if found, lerr := w.Locate(dep); lerr == nil && len(found) == 0 {
			return errs.New(errs.User, "--depends-on %s: no such task", dep).WithFix("git burl status lists the tasks")
		}
		return err
	}
	if e.Bucket == workflow.Done && e.Task.Cancelled() {
		return errs.New(errs.User, "--depends-on %s: it was cancelled and will never land", dep).WithFix("git burl show %s says why", dep)
	}
	// A cycle: id is reachable from dep through depends_on.
	seen := map[string]bool{}
	path := map[string]string{}
	queue := []string{dep}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if seen[cur] {
			continue
		}
		seen[cur] = true
		ce, err := w.Get(cur)
		if err != nil || ce.Task == nil {
			continue
		}
		for _, next := range ce.Task.List(task.KeyDependsOn) {
			if _, ok := path[next]; !ok {
				path[next] = cur
			}
			if next == id {
				back := []string{cur}
				for at := cur; at != dep; {
					at = path[at]
					back = append(back, at)
				}
				slices.Reverse(back)
				chain := append(append([]string{id}, back...), id)
				return errs.New(errs.User, "--depends-on %s would make a cycle: %s", dep, strings.Join(chain, " → ")).
					WithFix("drop the dependency that closes it: git burl edit %s --remove-depends-on %s", cur, id)
			}
			queue = append(queue, next)
		}
	}
	return nil
}
