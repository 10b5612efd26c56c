package next

import (
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/workflow"
)

// TestEveryBucketAndState is the table of what happens next: each
// (bucket, situation) gives one state, and either a command or what the
// task waits for, never both and never neither (DONE aside).
func TestEveryBucketAndState(t *testing.T) {
	const id = "TASK-007"
	dead := lease.Status{State: lease.Dead, Holder: "bot@h#12.345", PID: 12, Why: "process 12 exited"}
	expired := lease.Status{State: lease.Expired, Holder: "bot@far#9", Why: "lease of bot@far#9 expired at 2026-11-23T00:30:00Z"}
	live := lease.Status{State: lease.Live, Holder: "bot@h#13.1"}
	blockedDep := Dep{ID: "TASK-001", Reason: "needs the vendor's key\nand more", Step: Step{State: Unblockable, Command: "git burl unblock TASK-001"}}
	waitingDep := Dep{ID: "TASK-001", Reason: "parked", Step: Step{State: WaitsDeps, Wait: "waits for TASK-000 to be DONE (then git burl unblock TASK-001)"}}
	for _, c := range []struct {
		name    string
		f       Facts
		state   State
		command string // exact, or "" when it must wait
		text    string // in Wait (no command) or in Why
	}{
		{"READY", Facts{Bucket: workflow.Ready}, Claimable, "git burl claim TASK-007", ""},
		{"READY held", Facts{Bucket: workflow.Ready, Held: "a human does it"}, Held, "", "held by a human (a human does it): git burl unhold TASK-007 gives it back to agents; git burl claim TASK-007 --force takes it yourself"},
		{"READY held, waiting too", Facts{Bucket: workflow.Ready, Held: "mine", Unmet: []string{"TASK-001"}}, Held, "", "git burl unhold TASK-007"},
		{"READY waits for work", Facts{Bucket: workflow.Ready, Unmet: []string{"TASK-001"}}, WaitsDeps, "", "waits for TASK-001 to be DONE"},
		{"READY waits for a BLOCKED task", Facts{Bucket: workflow.Ready, Unmet: []string{"TASK-001"}, Blocked: []Dep{blockedDep}},
			WaitsBlocked, "", "waits for TASK-001 to be DONE (TASK-001 is BLOCKED: git burl show TASK-001 says why): needs the vendor's key …; next for TASK-001: git burl unblock TASK-001"},
		{"READY waits for a BLOCKED task that waits itself", Facts{Bucket: workflow.Ready, Unmet: []string{"TASK-001"}, Blocked: []Dep{waitingDep}},
			WaitsBlocked, "", "says why): parked; TASK-001 waits for TASK-000 to be DONE"},
		{"READY overlaps", Facts{Bucket: workflow.Ready, Overlap: "scope overlaps DOING TASK-002 (a.go)"}, WaitsOverlap, "", "overlaps DOING TASK-002"},
		{"READY at the cap", Facts{Bucket: workflow.Ready, Cap: "max_parallel is 2 and 2 tasks are in DOING"}, WaitsCap, "", "max_parallel is 2"},
		{"READY locked", Facts{Bucket: workflow.Ready, Lock: "held by x"}, Locked, "", "its lock is held: held by x"},
		{"READY every reason", Facts{Bucket: workflow.Ready, Unmet: []string{"TASK-001"}, Cap: "max_parallel is 1 and 1 tasks are in DOING"}, WaitsDeps, "", "to be DONE; max_parallel is 1"},
		{"READY scope request", Facts{Bucket: workflow.Ready, ScopeRequest: "+ affects: b.go"}, WaitsScopeDeal, "", "git burl scope TASK-007"},
		{"READY duplicate", Facts{Bucket: workflow.Ready, Duplicate: []string{"a.md", "b.md"}}, Duplicate, "", "a.md, b.md"},

		{"DOING by hand", Facts{Bucket: workflow.Doing}, Submittable, "git burl submit TASK-007", ""},
		{"DOING no commit yet", Facts{Bucket: workflow.Doing, NoCommit: "task-007-x"}, NoCommit, "", "first commit on task-007-x"},
		{"DOING stalled", Facts{Bucket: workflow.Doing, Stalled: 3 * time.Hour}, Stalled, "git burl release TASK-007", "if its worker is gone"},
		{"DOING under a live watcher", Facts{Bucket: workflow.Doing, Holder: live, NoCommit: "b", Stalled: time.Hour}, Running, "", "runs under git burl watch (bot@h#13)"},
		{"DOING its watcher died", Facts{Bucket: workflow.Doing, Holder: dead, NoCommit: "b"}, Lost, "git burl release TASK-007", "holder bot@h#12 is gone (process 12 exited)"},
		{"DOING its lease expired", Facts{Bucket: workflow.Doing, Holder: expired}, Lost, "git burl release TASK-007", "lease of bot@far#9 expired"},
		{"DOING scope request", Facts{Bucket: workflow.Doing, ScopeRequest: "+ affects: b.go"}, WaitsScopeDeal, "", "scope request (+ affects: b.go)"},

		{"QA", Facts{Bucket: workflow.QA}, Approvable, "git burl validate TASK-007 && git burl approve TASK-007", ""},
		{"QA pull request", Facts{Bucket: workflow.QA, PR: "3", PRURL: "http://forge/pr/3", GateFailed: true}, PROpen, "git burl sync", "pull request #3 is open: http://forge/pr/3"},
		{"QA failed its gates", Facts{Bucket: workflow.QA, GateFailed: true, BuildUntrusted: true}, GateFailed, `git burl reject TASK-007 --reason "its last gate run failed; see the QA report"`, ""},
		{"QA untrusted build", Facts{Bucket: workflow.QA, BuildUntrusted: true}, Untrusted, "git burl trust", "not trusted"},
		{"QA scope request", Facts{Bucket: workflow.QA, ScopeRequest: "+ affects: b.go"}, WaitsScopeDeal, "", "or refuse it with git burl scope TASK-007 --deny"},

		{"BLOCKED", Facts{Bucket: workflow.Blocked}, Unblockable, "git burl unblock TASK-007", ""},
		{"PROPOSED", Facts{Bucket: workflow.Proposed}, Proposed, "git burl accept TASK-007", ""},
		{"BLOCKED its dependencies DONE", Facts{Bucket: workflow.Blocked, Unmet: nil}, Unblockable, "git burl unblock TASK-007", ""},
		{"BLOCKED waits for work", Facts{Bucket: workflow.Blocked, Unmet: []string{"TASK-001"}}, WaitsDeps, "", "waits for TASK-001 to be DONE (then git burl unblock TASK-007)"},
		{"BLOCKED waits for a BLOCKED task", Facts{Bucket: workflow.Blocked, Unmet: []string{"TASK-001"}, Blocked: []Dep{blockedDep}}, WaitsBlocked, "", "git burl unblock TASK-001"},
		{"BLOCKED over budget", Facts{Bucket: workflow.Blocked, OverBudget: "1.2"}, OverBudget, "git burl edit TASK-007 --max-cost-usd 3", "spent $1.20, over its budget"},
		{"BLOCKED over a small budget", Facts{Bucket: workflow.Blocked, OverBudget: "0.01"}, OverBudget, "git burl edit TASK-007 --max-cost-usd 1", "git burl cancel TASK-007"},
		{"BLOCKED held", Facts{Bucket: workflow.Blocked, Held: "mine", OverBudget: "1"}, Held, "", "held by a human (mine): git burl unhold TASK-007"},
		{"BLOCKED scope request", Facts{Bucket: workflow.Blocked, ScopeRequest: "+ affects: b.go"}, WaitsScopeDeal, "", "git burl scope TASK-007"},
		{"BLOCKED duplicate", Facts{Bucket: workflow.Blocked, Duplicate: []string{"a.md", "b.md"}}, Duplicate, "", "keep one"},

		{"DONE landed", Facts{Bucket: workflow.Done}, Done, "", ""},
		{"DONE cancelled", Facts{Bucket: workflow.Done, Cancelled: true}, Cancelled, "", ""},
	} {
		c.f.ID = id
		s := For(c.f)
		if s.State != c.state {
			t.Errorf("%s: state %q, want %q", c.name, s.State, c.state)
		}
		if s.Command != c.command {
			t.Errorf("%s: command %q, want %q", c.name, s.Command, c.command)
		}
		if c.f.Bucket != workflow.Done && (s.Command == "") == (s.Wait == "") {
			t.Errorf("%s: command %q and wait %q: exactly one must be set", c.name, s.Command, s.Wait)
		}
		if got := s.Wait + s.Why; !strings.Contains(got, c.text) {
			t.Errorf("%s: %q lacks %q", c.name, got, c.text)
		}
	}
}

// A held task is offered unhold in the buckets hold applies to only.
func TestHeldOnlyWhereHoldApplies(t *testing.T) {
	if s := For(Facts{ID: "TASK-001", Bucket: workflow.Doing, Held: "x"}); s.State != Submittable {
		t.Errorf("DOING: %+v", s)
	}
}
