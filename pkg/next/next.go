// Package next answers, for every surface, what happens next to a task and
// why (DESIGN §20): status (and --json, --open), show, monitor, the HTML
// report and watch all ask For, so none of them names a command the verb
// would refuse, and none of them calls a dead run running.
//
// For is pure: it decides from Facts, which Set gathers for many tasks at
// once from what status reads anyway. A new situation is a new field of
// Facts and a new case in For, tested in next_test.go's table.
package next

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/workflow"
)

// State names a task's situation; `status --json` reports it as "state".
type State string

// The states, by bucket. Their names are pinned (status --json).
const (
	Duplicate State = "duplicate" // several files hold the ID: no verb acts on it
	Done      State = "done"      // landed: nothing more happens to it
	Cancelled State = "cancelled" // DONE without landing (git burl cancel)

	Claimable      State = "claimable"                // READY: claim
	Held           State = "held"                     // held back from agents: a human unholds it
	WaitsDeps      State = "waits_dependency"         // a dependency is work still to do
	WaitsBlocked   State = "waits_blocked_dependency" // a dependency is BLOCKED: a human acts on it
	WaitsOverlap   State = "waits_overlap"            // conflict_policy fail: scope overlaps DOING
	WaitsCap       State = "waits_cap"                // max_parallel reached
	Locked         State = "locked"                   // its lock is held by a live process
	WaitsScopeDeal State = "waits_scope_request"      // its agent asked for wider scope: a human decides

	Running     State = "running"            // DOING under a live watcher: watch submits it
	Lost        State = "lost"               // DOING, its watcher is gone: release (or a watch takes it over)
	Stalled     State = "stalled"            // DOING, no activity for lock_stale_minutes: release
	NoCommit    State = "waits_first_commit" // DOING, nothing to submit yet
	Submittable State = "submittable"        // DOING: submit

	PROpen      State = "pr_open"      // QA, its pull request is open: sync records the forge's word
	GateFailed  State = "gate_failed"  // QA, its last gate run failed: reject
	Untrusted   State = "untrusted"    // QA, the build command is not trusted here: trust
	WaitsReview State = "waits_review" // QA, its reviewer has not approved the submitted head: watch runs it
	Approvable  State = "approvable"   // QA: validate and approve

	Proposed    State = "proposed"    // PROPOSED by an agent: a human accepts it (or cancels it)
	Unblockable State = "unblockable" // BLOCKED: unblock
	OverBudget  State = "over_budget" // BLOCKED over max_cost_usd: raise it (or cancel)
)

// Dep is a dependency a task waits for that is BLOCKED: it waits for a
// human, and its own next step is what moves both.
type Dep struct {
	ID     string
	Reason string // its blocked_reason
	Step   Step   // its own next step
}

// Facts are what decides a task's next step. The zero value of each field
// is "nothing in the way".
type Facts struct {
	ID     string
	Bucket workflow.Bucket
	// Duplicate are the files of an ID that has more than one.
	Duplicate []string
	// Cancelled: a DONE task ended without landing (resolution: cancelled).
	Cancelled bool
	// Held is why a human holds the task back from agents ("" when not
	// held): git burl hold.
	Held string
	// Unmet are the depends_on tasks not DONE (of a QA task: the parent it
	// is stacked on, which lands first); Blocked those of them in
	// BLOCKED.
	Unmet   []string
	Blocked []Dep
	// Overlap and Cap are claim's refusals of a READY task, in claim's
	// words; Lock describes a live lock held on it.
	Overlap, Cap, Lock string
	// ScopeRequest is a pending scope_request.
	ScopeRequest string
	// Holder is a DOING task's watcher (lease.None for a hand claim).
	Holder lease.Status
	// Stalled: a DOING task with no commit nor claim for that long.
	Stalled time.Duration
	// NoCommit is a DOING task's branch when it has no commit past its base.
	NoCommit string
	// PR and PRURL are a QA task's open pull request.
	PR, PRURL string
	// GateFailed: a QA task's last validate or approve failed.
	GateFailed bool
	// Reviewer is the reviewer a QA task waits for (agents.yaml review:),
	// "" when none is configured or it approved the submitted head.
	Reviewer string
	// BuildUntrusted: validate and approve would refuse every QA task.
	BuildUntrusted bool
	// OverBudget is what a BLOCKED task's runs spent (dollars) when that is
	// over its budget.
	OverBudget string
}

// Step is what happens next to a task.
type Step struct {
	State State
	// Command is what to run now ("" when nothing can be done to the task
	// itself now); it is never one the verb would refuse.
	Command string
	// Wait is what the task waits for when Command is "".
	Wait string
	// Why says why Command, when the bucket alone does not (a dead holder,
	// a budget).
	Why string
}

// Line is the step in one line, as status, show and the board print it
// (escaped: a reason comes from the shared branch).
func (s Step) Line() string {
	switch {
	case s.Command != "" && s.Why != "":
		return s.Command + " (" + cli.Escape(s.Why) + ")"
	case s.Command != "":
		return s.Command
	case strings.HasPrefix(s.Wait, "waits for"):
		return cli.Escape(s.Wait)
	case s.Wait != "":
		return "waits: " + cli.Escape(s.Wait)
	}
	return ""
}

// For is a task's next step.
func For(f Facts) Step {
	id := f.ID
	if len(f.Duplicate) > 0 {
		// Every verb refuses an ID with two files (exit 1).
		return Step{State: Duplicate, Wait: "has more than one file (" + strings.Join(f.Duplicate, ", ") + "): keep one"}
	}
	if f.Bucket == workflow.Done {
		return DoneStep(f.Cancelled)
	}
	if f.Held != "" && (f.Bucket == workflow.Ready || f.Bucket == workflow.Blocked) {
		// What moves it is a human's word, not an agent's: it waits, as an
		// agent polling status reads it.
		w := workflow.HeldReason(id, f.Held)
		if f.Bucket == workflow.Ready {
			// claim with its ID, run by a human, takes a held task.
			w += "; git burl claim " + id + " --force takes it yourself"
		}
		return Step{State: Held, Wait: w}
	}
	switch f.Bucket {
	case workflow.Ready:
		return ready(f)
	case workflow.Doing:
		return doing(f)
	case workflow.QA:
		return qa(f)
	case workflow.Blocked:
		return blocked(f)
	case workflow.Proposed:
		// No agent claims it: what moves it is a human's word.
		return Step{State: Proposed, Command: "git burl accept " + id}
	}
	return Step{}
}

// DoneStep is a DONE task's step: a cancelled one never reads as landed.
func DoneStep(cancelled bool) Step {
	if cancelled {
		return Step{State: Cancelled}
	}
	return Step{State: Done}
}

func ready(f Facts) Step {
	var why []string
	st := Step{}
	first := func(s State) {
		if st.State == "" {
			st.State = s
		}
	}
	if len(f.Blocked) > 0 {
		first(WaitsBlocked)
		why = append(why, blockedDeps(f))
	} else if len(f.Unmet) > 0 {
		first(WaitsDeps)
		why = append(why, workflow.DepsReason(f.Unmet))
	}
	if f.Overlap != "" {
		first(WaitsOverlap)
		why = append(why, f.Overlap)
	}
	if f.Cap != "" {
		first(WaitsCap)
		why = append(why, f.Cap)
	}
	if f.Lock != "" {
		first(Locked)
		why = append(why, "its lock is held: "+f.Lock)
	}
	if f.ScopeRequest != "" {
		first(WaitsScopeDeal)
		why = append(why, scopeWait(f))
	}
	if st.State != "" {
		st.Wait = strings.Join(why, "; ")
		return st
	}
	return Step{State: Claimable, Command: "git burl claim " + f.ID}
}

func doing(f Facts) Step {
	id := f.ID
	switch {
	case f.Holder.Gone():
		return Step{State: Lost, Command: "git burl release " + id,
			Why: f.Holder.Describe() + "; a running git burl watch takes it over at its next round, or release it now (branch and worktree kept)"}
	case f.Holder.State == lease.Live:
		return Step{State: Running, Wait: "its agent runs under git burl watch (" + lease.Display(f.Holder.Holder) + "), which submits it"}
	case f.Stalled > 0:
		// How long is on status's line already ([stalled: ...]).
		return Step{State: Stalled, Command: "git burl release " + id, Why: "if its worker is gone"}
	case f.ScopeRequest != "":
		return Step{State: WaitsScopeDeal, Wait: scopeWait(f)}
	case f.NoCommit != "":
		return Step{State: NoCommit, Wait: "waits for its worker's first commit on " + f.NoCommit}
	}
	return Step{State: Submittable, Command: "git burl submit " + id}
}

func qa(f Facts) Step {
	id := f.ID
	switch {
	case f.ScopeRequest != "":
		return Step{State: WaitsScopeDeal, Wait: scopeWait(f)}
	case f.PR != "":
		// Approve again would only update the open request; merging it
		// is the forge's, and sync records what the forge did.
		return Step{State: PROpen, Command: "git burl sync", Why: "pull request #" + f.PR + " is open: " + f.PRURL}
	case f.GateFailed:
		return Step{State: GateFailed, Command: fmt.Sprintf(`git burl reject %s --reason "its last gate run failed; see the QA report"`, id)}
	case f.Reviewer != "":
		// approve --all and watch's auto_approve leave it in QA; a
		// human's approve lands it past the review, recorded as such.
		return Step{State: WaitsReview, Wait: fmt.Sprintf("waits for its review by %s (agents.yaml review:; git burl watch runs it on the submitted head); git burl approve %s lands it without, recorded as overridden", f.Reviewer, id)}
	case f.BuildUntrusted:
		return Step{State: Untrusted, Command: "git burl trust", Why: "the build command is not trusted on this machine"}
	case len(f.Unmet) > 0:
		// Stacked (DESIGN §26): approve refuses it until its parent landed.
		return Step{State: WaitsDeps, Wait: fmt.Sprintf("waits for %s, which it is stacked on, to land first (git burl approve %s; approve --all lands both, in order)", f.Unmet[0], f.Unmet[0])}
	}
	return Step{State: Approvable, Command: "git burl validate " + id + " && git burl approve " + id}
}

func blocked(f Facts) Step {
	id := f.ID
	switch {
	case len(f.Blocked) > 0:
		return Step{State: WaitsBlocked, Wait: blockedDeps(f)}
	case len(f.Unmet) > 0:
		// unblock refuses until they are DONE.
		return Step{State: WaitsDeps, Wait: workflow.DepsReason(f.Unmet) + " (then git burl unblock " + id + ")"}
	case f.ScopeRequest != "":
		return Step{State: WaitsScopeDeal, Wait: scopeWait(f)}
	case f.OverBudget != "":
		spent, _ := strconv.ParseFloat(f.OverBudget, 64)
		return Step{State: OverBudget, Command: fmt.Sprintf("git burl edit %s --max-cost-usd %s", id, raised(spent)),
			Why: fmt.Sprintf("its runs spent $%.2f, over its budget: unblocked as it is, it is blocked again before its next run; raise its max_cost_usd, then git burl unblock %s (or git burl cancel %s)", spent, id, id)}
	}
	return Step{State: Unblockable, Command: "git burl unblock " + id}
}

// raised is a budget that lets a task over budget run again: twice what
// its runs spent, in whole dollars.
func raised(spent float64) string {
	return strconv.FormatFloat(math.Max(1, math.Ceil(2*spent)), 'f', -1, 64)
}

// blockedDeps says what a task waits for when some of its dependencies
// are BLOCKED: each of those, why it is blocked, and what moves it.
func blockedDeps(f Facts) string {
	w := workflow.DepsReason(f.Unmet)
	for _, d := range f.Blocked {
		w += fmt.Sprintf(" (%s is BLOCKED: git burl show %s says why): %s", d.ID, d.ID, d.Detail())
	}
	return w
}

// Detail is why a BLOCKED dependency is blocked (its reason's first line)
// and what moves it.
func (d Dep) Detail() string {
	var p []string
	if d.Reason != "" {
		p = append(p, firstLine(d.Reason))
	}
	switch {
	case d.Step.Command != "":
		p = append(p, "next for "+d.ID+": "+d.Step.Command)
	case d.Step.Wait != "":
		p = append(p, d.ID+" "+d.Step.Wait)
	}
	return strings.Join(p, "; ")
}

func scopeWait(f Facts) string {
	return fmt.Sprintf(`for a human to grant its agent's scope request (%s) with git burl scope %s --grant, or refuse it with git burl scope %s --deny "why"`, f.ScopeRequest, f.ID, f.ID)
}

// firstLine is a reason's first line: a dependency's whole reason is its
// own show's.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
