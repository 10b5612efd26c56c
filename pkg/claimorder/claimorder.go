// Package claimorder holds the order claim takes READY tasks in, and why
// it passes one over: held, waiting for its dependencies, or its scope
// overlapping a DOING task's.
package claimorder

import (
	"fmt"
	"sort"
	"strings"
	"time"

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
