// Package intake is how a task comes into being: one task as add takes it
// (its flags, an entry of add --from, or what an agent proposes, DESIGN
// §27) checked, and written under the workflow lock with its add event.
package intake

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/bulk"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/scope"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Check checks one task as add takes it, flags or an entry of --from
// (flag prefixes the key names in messages: "--" or "entry 3: "), and
// builds its spec; depends_on is checked against the workflow later.
func Check(in bulk.Entry, flag string) (task.Spec, error) {
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

// KnownDeps normalises dependencies and checks each is a task of the
// workflow or one of planned (IDs an add --from is about to create).
func KnownDeps(w *workflow.Workflow, deps []string, planned map[string]bool) ([]string, error) {
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

// Create allocates the next ID under the workflow lock, so concurrent adds
// never share an ID, and commits the new file into bucket in (READY, or
// PROPOSED for what proposedBy proposed, discovered from the task
// discoveredFrom). With workflow_auto_push an ID taken meanwhile on
// another machine is noticed at push time: the add is redone with the
// next free ID (the loser renumbers).
func Create(w *workflow.Workflow, spec task.Spec, in workflow.Bucket, proposedBy, discoveredFrom string) (*workflow.Entry, error) {
	var e *workflow.Entry
	spec.Created = time.Now()
	err := w.Mutate("add", func(attempt int) (string, []string, error) {
		ids, err := w.IDs()
		if err != nil {
			return "", nil, err
		}
		spec.ID = task.NextID(ids)
		t := task.New(spec)
		details := map[string]any{"title": spec.Title, "priority": t.Priority()}
		if in == workflow.Proposed {
			t.SetStr(task.KeyProposedBy, proposedBy)
			details["bucket"] = string(workflow.Proposed)
			details["proposed_by"] = proposedBy
			if discoveredFrom != "" {
				t.SetStr(task.KeyDiscoveredFrom, discoveredFrom)
				details["discovered_from"] = discoveredFrom
			}
		}
		p := filepath.Join(w.BucketDir(in), task.FileName(spec.ID, task.Slug(spec.Title)))
		if err := fsx.WriteFile(p, t.Bytes()); err != nil {
			return "", nil, err
		}
		e = &workflow.Entry{ID: spec.ID, Bucket: in, Path: p, Task: t}
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
