// Package inbox answers what waits for a human (DESIGN §27): one item per
// decision only a person can make, each with the exact command that makes
// it. It decides nothing itself about a task: what moves a task is
// package next's (the same step status suggests), so the inbox never names
// a command the verb would refuse.
package inbox

import (
	"fmt"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/budget"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/next"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Kind names what an item waits for; the names are pinned (inbox --json).
type Kind string

// The kinds, in the order the inbox lists them.
const (
	Blocked      Kind = "blocked"       // BLOCKED: a human unblocks (or raises its budget)
	Review       Kind = "review"        // BLOCKED after its reviewer's rounds: a human decides
	ScopeRequest Kind = "scope_request" // its agent asked for wider scope
	Proposed     Kind = "proposed"      // a task an agent proposed: a human accepts it (or cancels it)
	PullRequest  Kind = "pull_request"  // an open pull request burl does not merge (pr_merge: none)
	DeadLock     Kind = "dead_lock"     // a lock whose owner is gone
	Held         Kind = "held"          // held back from agents by a human
	Untrusted    Kind = "untrusted"     // commands of the workflow burl will not run here
	Budget       Kind = "budget"        // the day's runs reached max_cost_usd_per_day: no watch claims
)

var rank = map[Kind]int{Blocked: 0, Review: 1, ScopeRequest: 2, Proposed: 3, PullRequest: 4, DeadLock: 5, Held: 6, Untrusted: 7, Budget: 8}

// Item is one thing that waits for a human.
type Item struct {
	Kind Kind `json:"kind"`
	// Task is the task's ID ("" for a workflow lock or untrusted commands).
	Task  string `json:"task,omitempty"`
	Title string `json:"title,omitempty"`
	// Summary says what waits, in one line.
	Summary string `json:"summary"`
	// Command is the exact command to run, quoted for a POSIX shell.
	Command string `json:"command"`
}

// Inputs are what status reads anyway.
type Inputs struct {
	// Tasks are the summaries of the open tasks (DONE is passed over).
	Tasks []workflow.Summary
	Next  *next.Set
	Locks []lock.Status
	// Untrusted are the commands not trusted here (file:key).
	Untrusted []string
	// PRMerge is config pr_merge: with "none" a person merges every
	// pull request.
	PRMerge string
	// Budget is the day's spend against max_cost_usd_per_day, and
	// RaiseBudget the command that raises the cap.
	Budget      budget.State
	RaiseBudget string
}

// Items is what waits for a human, most urgent kind first, then by task.
func Items(in Inputs) []Item {
	items := []Item{}
	for i := range in.Tasks {
		e := &in.Tasks[i]
		if e.Err != nil || e.Bucket == workflow.Done {
			continue
		}
		items = append(items, taskItems(e, in)...)
	}
	for _, l := range in.Locks {
		if !l.Dead {
			continue
		}
		it := Item{Kind: DeadLock, Summary: "lock " + l.Path + " " + l.Describe() + " (" + l.DeadWhy + ")",
			Command: "git burl lock clear " + osx.ShellQuote(l.Name) + " --force"}
		if _, isTask := task.IDNumber(l.Name); isTask {
			it.Task = l.Name
		}
		items = append(items, it)
	}
	if len(in.Untrusted) > 0 {
		items = append(items, Item{Kind: Untrusted, Command: "git burl trust",
			Summary: "not trusted on this machine, so burl will not run them: " + strings.Join(in.Untrusted, ", ") + "; read them, then trust them"})
	}
	if b := in.Budget; b.Reached {
		items = append(items, Item{Kind: Budget, Command: in.RaiseBudget,
			Summary: fmt.Sprintf("today's runs (%s, UTC) cost %s, max_cost_usd_per_day is %s: no watch claims until tomorrow (UTC) or a higher cap; the command raises it to %s",
				b.Day, usage.Dollars(b.SpentUSD), usage.Dollars(b.LimitUSD), usage.Dollars(budget.Raise(b)))})
	}
	sort.SliceStable(items, func(i, j int) bool {
		if rank[items[i].Kind] != rank[items[j].Kind] {
			return rank[items[i].Kind] < rank[items[j].Kind]
		}
		a, _ := task.IDNumber(items[i].Task)
		b, _ := task.IDNumber(items[j].Task)
		return a < b
	})
	for i := range items {
		items[i].Summary = cli.Escape(items[i].Summary)
		items[i].Title = cli.Escape(items[i].Title)
	}
	return items
}

// taskItems are what of one open task waits for a human.
func taskItems(e *workflow.Summary, in Inputs) []Item {
	it := func(k Kind, summary, command string) Item {
		return Item{Kind: k, Task: e.ID, Title: e.Title, Summary: summary, Command: command}
	}
	var out []Item
	if e.Held != "" {
		out = append(out, it(Held, "held: "+e.Held, "git burl unhold "+e.ID))
	}
	if e.ScopeRequest != "" {
		out = append(out, it(ScopeRequest, "its agent asks for wider scope: "+e.ScopeRequest, GrantCommand(e.ID, e.ScopeRequest)))
	}
	if e.Held != "" || e.ScopeRequest != "" {
		// Each is the first decision; the next one shows once it is made.
		return out
	}
	switch e.Bucket {
	case workflow.Blocked:
		st := in.Next.For(e)
		if st.Command == "" {
			// It waits for its dependencies: a BLOCKED one is an item of
			// its own, the others are work still to do.
			return out
		}
		k := Blocked
		if strings.Contains(e.BlockedReason, "review.rounds") {
			k = Review
		}
		summary := "blocked"
		if e.BlockedReason != "" {
			summary += ": " + e.BlockedReason
		}
		if st.Why != "" {
			summary += " (" + st.Why + ")"
		}
		out = append(out, it(k, summary, st.Command))
	case workflow.Proposed:
		// The same step status names for it (package next).
		out = append(out, it(Proposed, "an agent proposed it: no agent claims it until you accept it (or git burl cancel "+e.ID+" --reason \"...\")", in.Next.For(e).Command))
	case workflow.QA:
		if e.PRNumber != "" && in.PRMerge == "none" {
			out = append(out, it(PullRequest, fmt.Sprintf("pull request #%s waits for a person to merge or close it: %s; then git burl sync records it", e.PRNumber, e.PRURL), "git burl sync"))
		}
	}
	return out
}

// flags maps a scope key to the git burl scope flag that adds to it.
var flags = map[string]string{task.KeyAffects: "--affects", task.KeyAffectsGlobs: "--affects-glob", task.KeyMustNotTouch: "--must-not-touch"}

// GrantCommand is the git burl scope command that grants a recorded
// scope_request ("+ affects: x; - must_not_touch: y — reason", as package
// scope writes it); git burl show ID when the request does not read so.
func GrantCommand(id, request string) string {
	lines, reason, ok := strings.Cut(request, " — ")
	if !ok {
		return "git burl show " + id
	}
	cmd := []string{"git", "burl", "scope", id}
	for _, l := range strings.Split(lines, "; ") {
		op, rest := l[:min(2, len(l))], l[min(2, len(l)):]
		key, val, ok := strings.Cut(rest, ": ")
		flag := flags[key]
		switch {
		case !ok || flag == "":
			return "git burl show " + id
		case op == "+ ":
			cmd = append(cmd, flag, osx.ShellQuote(val))
		case op == "- ":
			cmd = append(cmd, "--remove", osx.ShellQuote(val))
		default:
			return "git burl show " + id
		}
	}
	return strings.Join(append(cmd, "--reason", osx.ShellQuote("granted: "+strings.TrimSpace(reason))), " ")
}
