package workflow

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
)

// Skip is a READY task claim passed over, and why.
type Skip struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// Candidates orders READY tasks for claiming (priority, then created, then
// ID) and drops those that cannot be claimed now: unmet depends_on (what
// unmet returns for a task), and a declared scope overlapping a DOING task
// when policy is "fail". overlap
// reports whether two tasks' scopes may touch the same files. With policy
// "warn" an overlapping task stays a candidate and the overlap is returned
// in warnings.
func Candidates(ready, doing []*task.Task, unmet func(*task.Task) []string, policy string,
	overlap func(a, b *task.Task) (bool, string)) (cands []*task.Task, skipped []Skip, warnings map[string]string) {
	sorted := append([]*task.Task(nil), ready...)
	sort.SliceStable(sorted, func(i, j int) bool { return ClaimOrderLess(sorted[i], sorted[j]) })
	warnings = map[string]string{}
	for _, t := range sorted {
		if h := t.Held(); h != "" {
			skipped = append(skipped, Skip{t.ID(), HeldReason(t.ID(), h)})
			continue
		}
		if deps := unmet(t); len(deps) > 0 {
			skipped = append(skipped, Skip{t.ID(), DepsReason(deps)})
			continue
		}
		if policy != "ignore" {
			if why := conflictWith(t, doing, overlap); why != "" {
				if policy == "fail" {
					skipped = append(skipped, Skip{t.ID(), why})
					continue
				}
				warnings[t.ID()] = why
			}
		}
		cands = append(cands, t)
	}
	return cands, skipped, warnings
}

// ClaimOrderLess is the claim order: priority, created, then ID number. A
// task without a readable created time goes after the dated ones of its
// priority rather than jumping the queue.
func ClaimOrderLess(a, b *task.Task) bool {
	if pa, pb := task.PriorityRank(a.Priority()), task.PriorityRank(b.Priority()); pa != pb {
		return pa < pb
	}
	ca, oka := created(a)
	cb, okb := created(b)
	if oka != okb {
		return oka
	}
	if oka && !ca.Equal(cb) {
		return ca.Before(cb)
	}
	na, _ := task.IDNumber(a.ID())
	nb, _ := task.IDNumber(b.ID())
	return na < nb
}

// timestampLayouts are the YAML timestamp forms (as yaml.v3 reads them), so
// that a hand-written "2026-01-13" or "2026-01-13T12:00:00+02:00" compares
// as the instant it names, not as text.
var timestampLayouts = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

func created(t *task.Task) (time.Time, bool) { return ParseCreated(t.Str(task.KeyCreated)) }

// ParseCreated reads a created value as the instant it names; false when
// it is missing or unreadable (such tasks sort after the dated ones).
func ParseCreated(s string) (time.Time, bool) {
	for _, l := range timestampLayouts {
		if ts, err := time.Parse(l, s); err == nil {
			return ts, true
		}
	}
	return time.Time{}, false
}

// UnmetDeps lists the dependencies of t that are not DONE.
func UnmetDeps(t *task.Task, done map[string]bool) []string {
	return Unmet(t.List(task.KeyDependsOn), done)
}

// Unmet lists the dependencies deps (a task's depends_on, as a Summary
// holds it) that are not DONE.
func Unmet(deps []string, done map[string]bool) []string {
	var unmet []string
	for _, d := range deps {
		if !done[d] {
			unmet = append(unmet, d)
		}
	}
	return unmet
}

// HeldReason is how claim and status say a task is held from agents.
func HeldReason(id, why string) string {
	return fmt.Sprintf("held by a human (%s): git burl unhold %s gives it back to agents", why, id)
}

// DepsReason is how claim and status say a task waits for dependencies.
func DepsReason(unmet []string) string {
	return "waits for " + strings.Join(unmet, ", ") + " to be DONE"
}

// OverlapReason is how claim and status say a task waits for a DOING task
// whose scope overlaps its own.
func OverlapReason(doing, why string) string {
	return fmt.Sprintf("scope overlaps DOING %s (%s)", doing, why)
}

// CapReason is how claim and status say max_parallel is reached.
func CapReason(max, doing int) string {
	return fmt.Sprintf("max_parallel is %d and %d tasks are in DOING", max, doing)
}

// conflictWith names the first DOING task whose scope overlaps t's.
func conflictWith(t *task.Task, doing []*task.Task, overlap func(a, b *task.Task) (bool, string)) string {
	for _, d := range doing {
		if d.ID() == t.ID() {
			continue
		}
		if ok, why := overlap(t, d); ok {
			return OverlapReason(d.ID(), why)
		}
	}
	return ""
}

// DoneSet is which of the tasks' depends_on are DONE, from file names
// alone. A dependency in an open bucket is not DONE; the rest are looked
// for in DONE newest month first, and only until all are found, so that
// a claim does not list a history's worth of files.
func (w *Workflow) DoneSet(ts ...*task.Task) (map[string]bool, error) {
	var deps []string
	for _, t := range ts {
		deps = append(deps, t.List(task.KeyDependsOn)...)
	}
	return w.DoneAmong(deps)
}

// DoneAmong is which of ids are DONE (see DoneSet).
func (w *Workflow) DoneAmong(ids []string) (map[string]bool, error) {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	done := map[string]bool{}
	for _, b := range Buckets {
		if b == Done || len(want) == 0 {
			continue
		}
		ns, err := names(w.BucketDir(b))
		if err != nil {
			return nil, err
		}
		for _, n := range ns {
			if id, ok := task.IDFromFileName(n); ok {
				delete(want, id)
			}
		}
	}
	if len(want) == 0 {
		return done, nil
	}
	top, err := names(w.BucketDir(Done))
	if err != nil {
		return nil, err
	}
	shards, err := w.doneShards(top)
	if err != nil {
		return nil, err
	}
	take := func(ns []string) {
		for _, n := range ns {
			if id, ok := task.IDFromFileName(n); ok && want[id] {
				done[id] = true
				delete(want, id)
			}
		}
	}
	take(top)
	for i := len(shards) - 1; i >= 0 && len(want) > 0; i-- {
		ns, err := names(shards[i])
		if err != nil {
			return nil, err
		}
		take(ns)
	}
	return done, nil
}

// InBucket parses every task of one bucket; malformed ones are returned
// separately so callers can report them.
func (w *Workflow) InBucket(b Bucket) (good []Entry, bad []Entry, err error) {
	fs, err := w.folders(b)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range fs {
		for _, n := range f.Names {
			id, ok := task.IDFromFileName(n)
			if !ok {
				// A markdown file someone put in a bucket by hand: report it, so
				// it is never silently ignored (it has no ID to act on).
				if strings.HasSuffix(n, ".md") {
					p := filepath.Join(f.Dir, n)
					bad = append(bad, Entry{Bucket: b, Path: p, Err: errs.New(errs.User,
						"%s is not a task file name (expected TASK-001-<slug>.md); burl ignores it", w.Rel(p)).
						WithFix("rename it, or move it out of %s", w.Rel(f.Dir))})
				}
				continue
			}
			e := Entry{ID: id, Bucket: b, Path: filepath.Join(f.Dir, n)}
			w.Read(&e)
			if e.Err != nil {
				bad = append(bad, e)
			} else {
				good = append(good, e)
			}
		}
	}
	return good, bad, nil
}

// Count is the number of tasks in bucket b, from file names alone.
func (w *Workflow) Count(b Bucket) (int, error) {
	if b == Done {
		return w.countDone()
	}
	ns, err := names(w.BucketDir(b))
	if err != nil {
		return 0, err
	}
	return countNames(ns), nil
}
