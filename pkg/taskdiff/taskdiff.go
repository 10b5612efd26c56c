// Package taskdiff finds a task's change as a range of commits (DESIGN
// §27): what landed for a DONE task (the range the queue tested and
// merged, from its approve event), what was submitted for a QA task, what
// its branch holds past its base otherwise. git burl diff shows it with
// git diff.
package taskdiff

import (
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// What a range is of; pinned (diff --json "of").
const (
	Landed    = "landed"    // DONE: main before the task landed .. the landed head
	Submitted = "submitted" // QA: base_sha .. submitted_sha
	Branch    = "branch"    // otherwise: base_sha .. the task branch's tip
)

// Range is a task's change.
type Range struct {
	From string `json:"from"`
	To   string `json:"to"`
	Of   string `json:"of"`
}

// For is e's change.
func For(w *workflow.Workflow, e *workflow.Entry) (Range, error) {
	t := e.Task
	base := t.BaseSHA()
	if e.Bucket == workflow.Done {
		if r, ok := landed(w, e); ok {
			return r, nil
		}
		if t.Str(task.KeyResolution) != task.ResolutionCancelled {
			return Range{}, errs.New(errs.User, "%s is DONE but the event log has no landing of it (its approve event's base and merged_sha)", e.ID).
				WithFix("git burl show %s and git log %s show what is known of it", e.ID, w.Config.MainBranch)
		}
	}
	if sub := t.Str(task.KeySubmittedSHA); e.Bucket == workflow.QA && gitx.ValidObjectID(sub) && gitx.ValidObjectID(base) {
		return Range{From: base, To: sub, Of: Submitted}, nil
	}
	br := t.Branch()
	if br == "" || !gitx.ValidObjectID(base) {
		return Range{}, errs.New(errs.User, "%s has no change yet: it was never claimed (no base_sha or branch)", e.ID).
			WithFix("git burl claim %s starts it", e.ID)
	}
	tip, err := w.Repo.Git.Run("rev-parse", "--verify", "--quiet", "refs/heads/"+br+"^{commit}")
	if err != nil || tip == "" {
		return Range{}, errs.New(errs.User, "%s's branch %s is not in this clone", e.ID, br).
			WithFix("git burl sync fetches the task branches, or git fetch %s %s:%s", w.Config.Remote, br, br)
	}
	return Range{From: base, To: tip, Of: Branch}, nil
}

// landed is the range of e's last approve event: the base the queue
// rebased onto and the head it merged.
func landed(w *workflow.Workflow, e *workflow.Entry) (Range, bool) {
	var since time.Time
	if at, err := time.Parse(time.RFC3339, e.Task.Str(task.KeyCompletedAt)); err == nil {
		// The approve event is written with completed_at, in its day's shard.
		since = at.Add(-time.Hour)
	}
	evs, err := events.ForTask(w.EventsDir(), e.ID, since)
	if err != nil {
		return Range{}, false
	}
	for i := len(evs) - 1; i >= 0; i-- {
		d := evs[i].Details
		if evs[i].Action != "approve" {
			continue
		}
		from, _ := d["base"].(string)
		to, _ := d["merged_sha"].(string)
		if gitx.ValidObjectID(from) && gitx.ValidObjectID(to) {
			return Range{From: from, To: to, Of: Landed}, true
		}
	}
	return Range{}, false
}
