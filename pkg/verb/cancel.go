package verb

import (
	"fmt"
	"slices"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Cancel is `git burl cancel`: what cmd/git-burl-cancel runs. Only the
// verbs a binary names are linked into it.
func Cancel() cli.Command { return &cancelCmd{} }

type cancelCmd struct {
	cli.JSONFlag
	Reason string `long:"reason" short:"r" value-name:"TEXT" description:"Why the task ends without landing (required)"`
}

// Cancel ends a task without landing it (DESIGN §20): it goes to DONE
// with resolution: cancelled, and every count, list and report tells it
// from landed work. Its branch and worktree stay, as release leaves them
// (git burl clean removes them with those of other DONE tasks). A task
// others depend on is refused: they would wait for work that never lands;
// only the tasks stacked on it that are under way are not (they go to
// BLOCKED, naming it).
func (c *cancelCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "cancel")
	if err != nil {
		return nil, err
	}
	why, err := requireReason("cancel", id, c.Reason)
	if err != nil {
		return nil, err
	}
	return move{verb: "cancel", label: "Cancelled", from: []workflow.Bucket{workflow.Ready, workflow.Doing, workflow.QA, workflow.Blocked, workflow.Proposed}, to: workflow.Done,
		apply: func(w *workflow.Workflow, tx *workflow.Tx) error {
			t := tx.Task
			if n := t.Str(task.KeyPRNumber); n != "" {
				return errs.New(errs.User, "%s's pull request #%s is open (%s)", id, n, t.Str(task.KeyPRURL)).
					WithFix("close it on the forge first (git burl sync records it), then git burl cancel %s", id)
			}
			if deps, err := dependents(w, id); err != nil {
				return err
			} else if len(deps) > 0 {
				return errs.New(errs.User, "%s depends on %s: it would wait for work that never lands", strings.Join(deps, ", "), id).
					WithFix("git burl edit %s --remove-depends-on %s (or cancel %s first)", deps[0], id, deps[0])
			}
			t.AppendToSection("QA Report", fmt.Sprintf("### Cancelled — %s by %s\n\nReason: %s\n", tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor, oneLine(why)))
			t.SetStr(task.KeyResolution, task.ResolutionCancelled)
			t.SetStr(task.KeyCancelledReason, oneLine(why))
			t.SetTime(task.KeyCompletedAt, tx.Now)
			// Nothing of it is in main: no submission or owner stays to
			// say otherwise, nor a hold or a block that no longer applies.
			for _, k := range []string{task.KeyAssignedTo, task.KeySubmittedAt, task.KeySubmittedSHA, task.KeyHeldReason, task.KeyScopeRequest, task.KeyLeaseHolder, task.KeyLeaseExpires} {
				t.SetNull(k)
			}
			t.ClearBlocked()
			tx.Details["reason"] = why
			tx.Details["resolution"] = task.ResolutionCancelled
			return nil
		},
		detail: func(e workflow.Entry) string { return " (cancelled, not landed; branch and worktree kept)" },
	}.run(ctx, id)
}

// dependents are the open tasks whose depends_on names id, but for the
// DOING and QA tasks stacked on it (DESIGN §26): those have started on its
// head and are blocked, naming it, when it is cancelled.
func dependents(w *workflow.Workflow, id string) ([]string, error) {
	var out []string
	for _, b := range []workflow.Bucket{workflow.Ready, workflow.Doing, workflow.QA, workflow.Blocked, workflow.Proposed} {
		es, _, err := w.InBucket(b)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.Task == nil || (b == workflow.Doing || b == workflow.QA) && e.Task.Str(task.KeyStackedOn) == id {
				continue
			}
			if slices.Contains(e.Task.List(task.KeyDependsOn), id) {
				out = append(out, e.ID)
			}
		}
	}
	return out, nil
}
