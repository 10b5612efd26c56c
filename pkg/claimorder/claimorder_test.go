package claimorder

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/task"
)

// mk parses a task file with the given frontmatter lines after id and title.
func mk(t *testing.T, id string, lines ...string) *task.Task {
	t.Helper()
	src := fmt.Sprintf("---\nid: %s\ntitle: %s\n%s\n---\n", id, strings.ToLower(id), strings.Join(lines, "\n"))
	tk, err := task.Parse([]byte(src))
	if err != nil {
		t.Fatalf("%s: %v\n%s", id, err, src)
	}
	if err := tk.Validate(id); err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return tk
}

func ids(ts []*task.Task) []string {
	out := []string{}
	for _, t := range ts {
		out = append(out, t.ID())
	}
	return out
}

// sameFile is an overlap function over a single "file:" key.
func sameFile(a, b *task.Task) (bool, string) {
	if fa := a.Str("file"); fa != "" && fa == b.Str("file") {
		return true, fa
	}
	return false, ""
}

func TestClaimOrderLess(t *testing.T) {
	cases := []struct {
		name   string
		before *task.Task
		after  *task.Task
	}{
		{"critical before high", mk(t, "TASK-009", "priority: critical"), mk(t, "TASK-001", "priority: high")},
		{"high before medium", mk(t, "TASK-009", "priority: high"), mk(t, "TASK-001", "priority: medium")},
		{"medium before low", mk(t, "TASK-009", "priority: medium"), mk(t, "TASK-001", "priority: low")},
		{"no priority is medium", mk(t, "TASK-009"), mk(t, "TASK-001", "priority: low")},
		{"earlier created first",
			mk(t, "TASK-009", "created: 2026-01-01T00:00:00Z"), mk(t, "TASK-001", "created: 2026-01-02T00:00:00Z")},
		{"created compares instants, not text",
			mk(t, "TASK-009", "created: 2026-01-13T10:00:00+02:00"), mk(t, "TASK-001", "created: 2026-01-13T09:00:00Z")},
		{"a date is midnight UTC",
			mk(t, "TASK-009", "created: 2026-01-13"), mk(t, "TASK-001", "created: 2026-01-13T00:00:01Z")},
		{"a task without created does not jump the queue",
			mk(t, "TASK-009", "created: 2026-01-13T00:00:00Z"), mk(t, "TASK-001")},
		{"unreadable created sorts like missing",
			mk(t, "TASK-009", "created: 2026-01-13T00:00:00Z"), mk(t, "TASK-001", "created: yesterday")},
		{"same created: lower ID first",
			mk(t, "TASK-002", "created: 2026-01-13T00:00:00Z"), mk(t, "TASK-010", "created: 2026-01-13T00:00:00Z")},
		{"ID compares as a number", mk(t, "TASK-999"), mk(t, "TASK-1000")},
		{"priority beats created",
			mk(t, "TASK-009", "priority: high", "created: 2026-02-01T00:00:00Z"), mk(t, "TASK-001", "priority: medium", "created: 2026-01-01T00:00:00Z")},
	}
	for _, c := range cases {
		if !ClaimOrderLess(c.before, c.after) {
			t.Errorf("%s: %s should sort before %s", c.name, c.before.ID(), c.after.ID())
		}
		if ClaimOrderLess(c.after, c.before) {
			t.Errorf("%s: %s should not sort before %s", c.name, c.after.ID(), c.before.ID())
		}
	}
	a := mk(t, "TASK-001", "created: 2026-01-13T00:00:00Z")
	if ClaimOrderLess(a, a) {
		t.Error("a task sorts before itself")
	}
}

func TestUnmetDeps(t *testing.T) {
	tk := mk(t, "TASK-005", "depends_on: [TASK-001, TASK-002, TASK-003]")
	got := UnmetDeps(tk, map[string]bool{"TASK-002": true})
	if want := []string{"TASK-001", "TASK-003"}; !reflect.DeepEqual(got, want) {
		t.Errorf("UnmetDeps = %v, want %v", got, want)
	}
	if got := UnmetDeps(tk, map[string]bool{"TASK-001": true, "TASK-002": true, "TASK-003": true}); len(got) != 0 {
		t.Errorf("all DONE: UnmetDeps = %v, want none", got)
	}
	if got := UnmetDeps(mk(t, "TASK-006", "depends_on: []"), nil); len(got) != 0 {
		t.Errorf("no deps: UnmetDeps = %v", got)
	}
}

func TestCandidates(t *testing.T) {
	ready := []*task.Task{
		mk(t, "TASK-001", "priority: low", "file: a"),
		mk(t, "TASK-002", "priority: critical", "file: shared"),
		mk(t, "TASK-003", "priority: high", "depends_on: [TASK-004]", "file: c"),
		mk(t, "TASK-005", "priority: high", "depends_on: [TASK-006]", "file: e"),
		mk(t, "TASK-007", "priority: medium", "file: g"),
	}
	doing := []*task.Task{mk(t, "TASK-008", "file: shared")}
	done := map[string]bool{"TASK-006": true}

	cands, skipped, warnings := Candidates(ready, doing, unmetIn(done), "fail", sameFile)
	if want := []string{"TASK-005", "TASK-007", "TASK-001"}; !reflect.DeepEqual(ids(cands), want) {
		t.Errorf("fail: candidates %v, want %v", ids(cands), want)
	}
	wantSkips := map[string]string{
		"TASK-002": "scope overlaps DOING TASK-008 (shared)",
		"TASK-003": "waits for TASK-004 to be DONE",
	}
	if len(skipped) != len(wantSkips) {
		t.Errorf("fail: skipped %v, want %v", skipped, wantSkips)
	}
	for _, s := range skipped {
		if wantSkips[s.ID] != s.Reason {
			t.Errorf("fail: %s skipped because %q, want %q", s.ID, s.Reason, wantSkips[s.ID])
		}
	}
	if len(warnings) != 0 {
		t.Errorf("fail: warnings %v", warnings)
	}

	cands, skipped, warnings = Candidates(ready, doing, unmetIn(done), "warn", sameFile)
	if want := []string{"TASK-002", "TASK-005", "TASK-007", "TASK-001"}; !reflect.DeepEqual(ids(cands), want) {
		t.Errorf("warn: candidates %v, want %v", ids(cands), want)
	}
	if len(skipped) != 1 || skipped[0].ID != "TASK-003" {
		t.Errorf("warn: skipped %v, want only TASK-003", skipped)
	}
	if w := warnings["TASK-002"]; !strings.Contains(w, "TASK-008") || len(warnings) != 1 {
		t.Errorf("warn: warnings %v, want one naming TASK-008 for TASK-002", warnings)
	}

	cands, _, warnings = Candidates(ready, doing, unmetIn(done), "ignore", func(a, b *task.Task) (bool, string) {
		t.Fatal("conflict_policy ignore must not compute overlaps")
		return false, ""
	})
	if len(cands) != 4 || len(warnings) != 0 {
		t.Errorf("ignore: candidates %v, warnings %v", ids(cands), warnings)
	}

	// A task never conflicts with itself (a re-claim after release).
	self := mk(t, "TASK-008", "file: shared")
	if cands, _, _ := Candidates([]*task.Task{self}, doing, unmetIn(nil), "fail", sameFile); len(cands) != 1 {
		t.Errorf("a task overlapping only itself was skipped")
	}
}

func unmetIn(done map[string]bool) func(*task.Task) []string {
	return func(t *task.Task) []string { return UnmetDeps(t, done) }
}
