package next

import (
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/workflow"
)

// TestGatherFindsEachFact gathers from summaries as status reads them and
// checks the facts that decide each task's step.
func TestGatherFindsEachFact(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	cfg := config.Default()
	cfg.MaxParallel, cfg.ConflictPolicy, cfg.LockStaleMinutes = 2, "fail", 60
	w := &workflow.Workflow{Config: cfg, Host: "h"}
	tasks := []workflow.Summary{
		{ID: "TASK-001", Bucket: workflow.Blocked, BlockedReason: "needs the key\nmore"},
		{ID: "TASK-002", Bucket: workflow.Ready, DependsOn: []string{"TASK-001", "TASK-009"}, Affects: []string{"b.go"}},
		{ID: "TASK-003", Bucket: workflow.Blocked, DependsOn: []string{"TASK-009"}},
		{ID: "TASK-004", Bucket: workflow.Doing, Affects: []string{"a.go"}, Branch: "task-004-x", BaseSHA: "base",
			StartedAt: "2026-11-23T09:00:00Z", LeaseHolder: "bot@h#4194303", LeaseExpires: "2026-11-23T13:00:00Z"},
		{ID: "TASK-005", Bucket: workflow.Doing, Affects: []string{"c.go"}, Branch: "task-005-x", BaseSHA: "base", StartedAt: "2026-11-23T11:50:00Z"},
		{ID: "TASK-006", Bucket: workflow.Ready, Affects: []string{"a.go"}},
		{ID: "TASK-007", Bucket: workflow.Ready, Affects: []string{"d.go"}},
		{ID: "TASK-008", Bucket: workflow.Done},
		{ID: "TASK-010", Bucket: workflow.Ready, Err: errFake{}},
		{ID: "TASK-011", Bucket: workflow.Blocked, OverBudget: "1.5"},
		{ID: "TASK-012", Bucket: workflow.QA, PRNumber: "4", PRURL: "u", GateFailed: true},
	}
	refs := &Refs{Activity: map[string]time.Time{"task-004-x": now.Add(-3 * time.Hour)},
		Tips: map[string]string{"task-004-x": "new", "task-005-x": "base"}}
	locks := []lock.Status{{Name: "TASK-007", Dead: true}, {Name: "TASK-002"}}
	s, err := Gather(w, Inputs{Tasks: tasks, Done: map[string]bool{"TASK-009": true}, Locks: locks, Refs: refs,
		Duplicates: map[string][]string{"TASK-012": {"a", "b"}}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	step := func(i int) Step { return s.For(&tasks[i]) }
	if f := s.Facts(&tasks[1]); len(f.Blocked) != 1 || f.Blocked[0].ID != "TASK-001" || f.Blocked[0].Step.State != Unblockable ||
		len(f.Unmet) != 1 || f.Cap == "" || f.Lock == "" {
		t.Errorf("TASK-002: %+v", f)
	}
	if st := step(1); st.State != WaitsBlocked || !strings.Contains(st.Wait, "): needs the key …; next for TASK-001: git burl unblock TASK-001") {
		t.Errorf("TASK-002: %+v", st)
	}
	// Its only dependency is DONE: the original bug said it waited.
	if st := step(2); st.State != Unblockable || st.Command != "git burl unblock TASK-003" {
		t.Errorf("TASK-003: %+v", st)
	}
	if f := s.Facts(&tasks[3]); !f.Holder.Gone() || f.Stalled == 0 || f.NoCommit != "" {
		t.Errorf("TASK-004: %+v", f)
	}
	if st := step(3); st.State != Lost {
		t.Errorf("TASK-004: %+v", st)
	}
	if st := step(4); st.State != NoCommit || !strings.Contains(st.Wait, "task-005-x") {
		t.Errorf("TASK-005: %+v", st)
	}
	if f := s.Facts(&tasks[5]); !strings.Contains(f.Overlap, "DOING TASK-004") {
		t.Errorf("TASK-006: %+v", f)
	}
	// Only max_parallel holds TASK-007 back: its lock's holder is dead.
	if f := s.Facts(&tasks[6]); f.Lock != "" || f.Overlap != "" || f.Cap == "" {
		t.Errorf("TASK-007: %+v", f)
	}
	if st := step(7); st.State != Done {
		t.Errorf("TASK-008: %+v", st)
	}
	if st := step(9); st.State != OverBudget {
		t.Errorf("TASK-011: %+v", st)
	}
	if st := step(10); st.State != Duplicate {
		t.Errorf("TASK-012: %+v", st)
	}
}

type errFake struct{}

func (errFake) Error() string { return "malformed" }
