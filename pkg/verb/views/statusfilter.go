package views

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/workflow"
)

// statusFilter is what status --open, --bucket and --since keep of the
// task list. The counts are never filtered.
type statusFilter struct {
	buckets []workflow.Bucket // empty: every bucket
	since   time.Time         // zero: any time
}

func (c *statusCmd) filter() (statusFilter, error) {
	var f statusFilter
	for _, b := range c.Buckets {
		for _, one := range strings.Split(b, ",") {
			bk := workflow.Bucket(strings.ToUpper(strings.TrimSpace(one)))
			if !slices.Contains(workflow.Buckets, bk) {
				return f, cli.UsageError("status", "--bucket "+one+" is not a bucket: READY, DOING, QA, DONE or BLOCKED (or PROPOSED)")
			}
			f.buckets = append(f.buckets, bk)
		}
	}
	if c.Open {
		if slices.Contains(f.buckets, workflow.Done) {
			return f, cli.UsageError("status", "--open leaves DONE out, and --bucket DONE asks for it")
		}
		if len(f.buckets) == 0 {
			f.buckets = []workflow.Bucket{workflow.Ready, workflow.Doing, workflow.QA, workflow.Blocked, workflow.Proposed}
		}
	}
	if c.Since != "" {
		// The same times git burl log --since takes.
		t, err := parseSince(c.Since, time.Now())
		if err != nil {
			return f, err
		}
		f.since = t
	}
	return f, nil
}

// lists reports whether bucket b's tasks can be in the list.
func (f statusFilter) lists(b workflow.Bucket) bool {
	return len(f.buckets) == 0 || slices.Contains(f.buckets, b)
}

// apply keeps the summaries of es, listed by order, that f lists.
func (f statusFilter) apply(fields func(*workflow.Summary) json.RawMessage, es []workflow.Summary, order []int32) []int32 {
	if len(f.buckets) == 0 && f.since.IsZero() {
		return order
	}
	out := order[:0]
	for _, i := range order {
		if e := &es[i]; f.lists(e.Bucket) && (f.since.IsZero() || !lastChange(*e, fields(e)).Before(f.since)) {
			out = append(out, i)
		}
	}
	return out
}

// lastChange is the latest of a task's created, started_at, submitted_at
// and completed_at (the last two are in its fields, with --json).
func lastChange(e workflow.Summary, fields json.RawMessage) time.Time {
	var last time.Time
	stamps := []string{e.Created, e.StartedAt}
	if len(fields) > 0 {
		var f struct {
			Submitted string `json:"submitted_at"`
			Completed string `json:"completed_at"`
		}
		_ = json.Unmarshal(fields, &f)
		stamps = append(stamps, f.Submitted, f.Completed)
	}
	for _, s := range stamps {
		if t, err := time.Parse(time.RFC3339, s); err == nil && t.After(last) {
			last = t
		}
	}
	return last
}
