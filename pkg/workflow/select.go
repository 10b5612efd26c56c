package workflow

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/claimorder"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
)

// The claim order and its reasons are package claimorder's; these names
// keep the workflow's callers as they were.

// Skip is a READY task claim passed over, and why.
type Skip = claimorder.Skip

// Candidates orders READY tasks for claiming and drops those that cannot
// be claimed now (claimorder.Candidates).
func Candidates(ready, doing []*task.Task, unmet func(*task.Task) []string, policy string,
	overlap func(a, b *task.Task) (bool, string)) (cands []*task.Task, skipped []Skip, warnings map[string]string) {
	return claimorder.Candidates(ready, doing, unmet, policy, overlap)
}

// ClaimOrderLess is the claim order: priority, created, then ID number.
func ClaimOrderLess(a, b *task.Task) bool { return claimorder.ClaimOrderLess(a, b) }

// ParseCreated reads a created value as the instant it names.
func ParseCreated(s string) (time.Time, bool) { return claimorder.ParseCreated(s) }

// UnmetDeps lists the dependencies of t that are not DONE.
func UnmetDeps(t *task.Task, done map[string]bool) []string { return claimorder.UnmetDeps(t, done) }

// Unmet lists the dependencies deps that are not DONE.
func Unmet(deps []string, done map[string]bool) []string { return claimorder.Unmet(deps, done) }

// HeldReason is how claim and status say a task is held from agents.
func HeldReason(id, why string) string { return claimorder.HeldReason(id, why) }

// DepsReason is how claim and status say a task waits for dependencies.
func DepsReason(unmet []string) string { return claimorder.DepsReason(unmet) }

// OverlapReason is how claim and status say a task waits for a DOING task
// whose scope overlaps its own.
func OverlapReason(doing, why string) string { return claimorder.OverlapReason(doing, why) }

// CapReason is how claim and status say max_parallel is reached.
func CapReason(max, doing int) string { return claimorder.CapReason(max, doing) }

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
