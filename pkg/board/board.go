// Package board is the workflow's board as git burl monitor shows it:
// each task's card in its column, the runs going on, the tail of the event
// log, read from the task files, the locks and the event log (nothing is
// kept besides them).
package board

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/conflict"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/land"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/next"
	"github.com/burl-dev/burl/pkg/reason"
	"github.com/burl-dev/burl/pkg/review"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Card is one task on the board.
type Card struct {
	ID, Priority, Title, Owner string
	Bucket                     workflow.Bucket
	// Since is when the task entered its bucket as far as its frontmatter
	// says (created, started_at, submitted_at, completed_at): its age.
	Since     time.Time
	Created   time.Time
	Completed time.Time
	Locked    bool
	Stalled   bool
	// LeaseExpired: the task's lease_expires is in the past.
	LeaseExpired bool
	// Holder is a DOING task's watcher as judged now: Dead or Expired, the
	// task's run is lost (nobody will finish it; see Next).
	Holder lease.Status
	// Conflicts are the tasks (or "main") its work is predicted to
	// conflict with.
	Conflicts []string
	// Title, Owner and Priority come from a shared branch: they are kept
	// with their control characters already escaped (cli.Escape), for
	// every way the board is drawn.
	// Waiting are the depends_on tasks that are not DONE yet.
	Waiting   []string
	DependsOn []string
	Path      string
	// Usage is what agent runs on the task cost (usage frontmatter).
	Usage usage.Sum
	// Reason is a BLOCKED task's blocked_reason in its one-line summary
	// (escaped): the whole text is in the task's QA report.
	Reason string
	// Held is why a human holds the task from agents (escaped).
	Held string
	// Cancelled is why a DONE task ended without landing (escaped), ""
	// for one that landed.
	Cancelled string
	// BlockedDeps are the Waiting tasks that are BLOCKED: a human must act.
	BlockedDeps []string
	// Next is what happens next to the task, as status says it.
	Next next.Step
	// PRNumber, PRURL (escaped) and PRState ("open" or "merged") are the
	// pull request of a QA task waiting on the forge or of a DONE task
	// that landed through one (landing: pr; see pr.go).
	PRNumber       int
	PRURL, PRState string
	// Review is the task's recorded review in one line (escaped) and
	// ReviewMark its marker (see setReview).
	Review, ReviewMark string
	// StackedOn is the open task's parent in a stack (stacked_on,
	// escaped): its card is drawn as the next link of that chain.
	StackedOn string
	// Queue is a QA task's place in the merge queue, or what it waits
	// for (land.Place.Label).
	Queue string
}

// Markers are the flags drawn after a card's ID: L locked, S stalled, E
// lease expired, X its run is lost (its watcher died or its lease
// expired: nobody will finish it), C predicted conflict, W waiting on a
// dependency that is work still to do, B! waiting on a BLOCKED one (no
// agent will ever claim the task: a human must act; it replaces W), H held
// by a human from agents, N cancelled: DONE, not landed; then the review's (R+
// approved, R- changes requested, R! failed, R~ overridden, R? a QA
// task's new head waits for its review).
func (c Card) Markers() string {
	var b strings.Builder
	for _, m := range []struct {
		on bool
		s  string
	}{{c.Locked, "L"}, {c.Stalled, "S"}, {c.LeaseExpired, "E"}, {c.Holder.Gone(), "X"}, {len(c.Conflicts) > 0, "C"},
		{len(c.BlockedDeps) > 0, "B!"}, {len(c.Waiting) > 0 && len(c.BlockedDeps) == 0, "W"},
		{c.Held != "", "H"}, {c.Cancelled != "", "N"}} {
		if m.on {
			b.WriteString(m.s)
		}
	}
	b.WriteString(c.ReviewMark)
	return b.String()
}

// Run is a watch agent's run that has started and not ended.
type Run struct {
	Task, Agent string
	Attempt     int
	Log         string // relative to the repository root
	Since       time.Time
	LastLine    string
	// holder and actor say which watcher and agent ran it (run_start);
	// lease is its task's lease, for Board.Gone.
	holder, actor string
	lease         lease.Fields
	// Lost is why the run is lost ("" while it runs): its watcher is gone
	// and nobody will end it. Until is its last sign of life, and Next
	// what to do about its task.
	Lost  string
	Until time.Time
	Next  next.Step
}

// Board is everything drawn, read at Now.
type Board struct {
	Now     time.Time
	Columns map[workflow.Bucket][]Card
	// Runs are the runs going on: their watcher lives. Lost are the runs
	// whose watcher is gone, until their task is taken over or leaves
	// DOING.
	Runs, Lost []Run
	// Tail is the end of the event log, oldest first.
	Tail []events.Event
	// Malformed counts task files that could not be read (status names them).
	Malformed int
	// Done is how many tasks DONE holds; Columns has the most recent of
	// them, or all of them for the report. Cancelled is how many of them
	// ended without landing.
	Done, Cancelled int
	// Usage sums the cards' usage by agent.
	Usage usage.Table
	// RunningLogs are the absolute paths of the running runs' logs, whose
	// growth the live board watches.
	RunningLogs []string
	// host and grace judge the running runs' watchers again (Gone).
	host  string
	grace time.Duration
}

// tailLen is how many events the board keeps; the terminal shows what fits.
const tailLen = 50

// Recent is how far back the live board reads the event log: far enough
// for any run still going (runs are bounded by their timeout and lease),
// near enough that a year of history is never read on each redraw.
const Recent = 72 * time.Hour

// recentDone is how many of the most recent DONE tasks the board reads at
// least: more than a column shows, and never a year of history on each
// redraw.
const recentDone = 100

// Load reads the board from the events evs (the runs and the tail) and the
// task files: every DONE task withAllDone (the report), else the most
// recent ones and DONE's count.
func Load(w *workflow.Workflow, now time.Time, evs []events.Event, withAllDone bool) (*Board, error) {
	sums, err := w.Summaries(true, withAllDone)
	if err != nil {
		return nil, err
	}
	b := &Board{Now: now, Columns: map[workflow.Bucket][]Card{}, Usage: usage.Table{}, host: w.Host, grace: w.Config.LeaseGrace}
	if !withAllDone {
		recent, err := w.RecentDone(recentDone, true)
		if err != nil {
			return nil, err
		}
		sums = append(sums, recent...)
		if b.Done, b.Cancelled, err = w.DoneCounts(); err != nil {
			return nil, err
		}
	}
	locked := map[string]bool{}
	ls, err := w.Locks.List()
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		locked[l.Name] = true
	}
	set, err := next.Gather(w, next.Inputs{Tasks: sums, Locks: ls, Now: now})
	if err != nil {
		return nil, err
	}
	conflicts := predicted(w)
	places := land.QueuePlaces(w)
	doing := map[string]workflow.Summary{}
	for _, s := range sums {
		if s.Err != nil {
			b.Malformed++
			continue
		}
		var f map[string]any
		_ = json.Unmarshal(s.Fields, &f)
		str := func(k string) string { v, _ := f[k].(string); return v }
		c := Card{
			ID: s.ID, Bucket: s.Bucket, Priority: cli.Escape(s.Priority), Title: cli.Escape(s.Title), Owner: cli.Escape(s.AssignedTo),
			Locked: locked[s.ID], Conflicts: conflicts[s.ID], DependsOn: s.DependsOn, Path: s.Path,
		}
		if raw, ok := f[task.KeyUsage]; ok {
			for agent, sum := range usageOf(raw) {
				c.Usage.Runs += sum.Runs
				c.Usage.Usage.Add(sum.Usage)
				a := b.Usage[agent]
				a.Runs += sum.Runs
				a.Usage.Add(sum.Usage)
				b.Usage[agent] = a
			}
		}
		c.Created, _ = workflow.ParseCreated(s.Created)
		c.Completed = parseTime(str(task.KeyCompletedAt))
		c.Reason = cli.Escape(s.BlockedReason)
		c.Held = cli.Escape(s.Held)
		if s.Resolution == task.ResolutionCancelled {
			c.Cancelled = cli.Escape(reason.Summary(str(task.KeyCancelledReason)))
			if c.Cancelled == "" {
				c.Cancelled = task.ResolutionCancelled
			}
		}
		c.setPR(f)
		if s.Bucket != workflow.Done {
			c.StackedOn = cli.Escape(str(task.KeyStackedOn))
			facts := set.Facts(&s)
			c.Next = next.For(facts)
			c.Waiting, c.Holder, c.Stalled = facts.Unmet, facts.Holder, facts.Stalled > 0
			for _, d := range facts.Blocked {
				c.BlockedDeps = append(c.BlockedDeps, d.ID)
			}
			if s.Bucket != workflow.Ready {
				// The board marks waiting on READY cards only, as claim
				// sees it.
				c.Waiting, c.BlockedDeps = nil, nil
			}
		}
		c.setReview(f)
		switch s.Bucket {
		case workflow.Ready:
			c.Since = c.Created
		case workflow.Doing:
			c.Since = parseTime(s.StartedAt)
			if exp := parseTime(s.LeaseExpires); !exp.IsZero() && exp.Before(now) {
				c.LeaseExpired = true
			}
			doing[s.ID] = s
		case workflow.QA:
			c.Since = parseTime(str(task.KeySubmittedAt))
			// An open pull request's card says it waits for the forge.
			if p, ok := places[s.ID]; ok && c.PRNumber == 0 {
				c.Queue = p.Label()
			}
		case workflow.Done:
			c.Since = c.Completed
		default:
			c.Since = c.Created
		}
		b.Columns[s.Bucket] = append(b.Columns[s.Bucket], c)
	}
	if withAllDone {
		b.Done = len(b.Columns[workflow.Done])
		for _, c := range b.Columns[workflow.Done] {
			if c.Cancelled != "" {
				b.Cancelled++
			}
		}
	}
	for _, bk := range workflow.Buckets {
		sortCards(b.Columns[bk], bk)
	}
	for _, r := range Running(evs) {
		s, ok := doing[r.Task]
		if ok && !r.runs(s) {
			// Its task is another watcher's now.
			continue
		}
		if c := b.card(r.Task); ok && c.Holder.Gone() {
			r.Lost, r.Next, r.Until = c.Holder.Describe(), c.Next, lastSign(evs, r.Task)
			// Its agent wrote its log until it died: a run of seconds
			// whose last event is its start is not "LOST after 0s".
			if p, ok := w.RunLog(r.Log); ok {
				if st, err := os.Stat(p); err == nil && st.ModTime().After(r.Until) {
					r.Until = st.ModTime()
				}
			}
			b.Lost = append(b.Lost, r)
			continue
		}
		if ok {
			r.lease = lease.Fields{Holder: s.LeaseHolder, Expires: s.LeaseExpires, StartedAt: s.StartedAt}
		}
		b.Runs = append(b.Runs, r)
	}
	for i := range b.Runs {
		// The path comes from an event anyone who can push the workflow
		// branch could have written: only a regular file under the logs
		// directory is read.
		if p, ok := w.RunLog(b.Runs[i].Log); ok {
			b.RunningLogs = append(b.RunningLogs, p)
			b.Runs[i].LastLine = cli.Escape(lastLine(p))
		}
	}
	if len(evs) > tailLen {
		evs = evs[len(evs)-tailLen:]
	}
	b.Tail = evs
	return b, nil
}

// usageOf reads a task's usage frontmatter as decoded from its JSON.
func usageOf(raw any) map[string]usage.Sum {
	var out map[string]usage.Sum
	j, _ := json.Marshal(raw)
	_ = json.Unmarshal(j, &out)
	return out
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// sortCards: DONE most recent first, the others in claim order (priority,
// then age), as claim would take them.
func sortCards(cs []Card, b workflow.Bucket) {
	sort.SliceStable(cs, func(i, j int) bool {
		if b == workflow.Done {
			if !cs[i].Since.Equal(cs[j].Since) {
				return cs[i].Since.After(cs[j].Since)
			}
			return IDNum(cs[i].ID) > IDNum(cs[j].ID)
		}
		if pi, pj := task.PriorityRank(cs[i].Priority), task.PriorityRank(cs[j].Priority); pi != pj {
			return pi < pj
		}
		return IDNum(cs[i].ID) < IDNum(cs[j].ID)
	})
}

// IDNum is a task id's number, for ordering cards by it.
func IDNum(id string) int { n, _ := task.IDNumber(id); return n }

// predicted is `git burl conflicts` for the board: the same prediction,
// remembered per pair of commits in logs/conflicts.cache as status does,
// so a redraw with no branch moved runs no merge. A prediction that
// cannot be made marks nothing.
func predicted(w *workflow.Workflow) map[string][]string {
	mainSHA, tips, err := conflict.InFlight(w)
	if err != nil || len(tips) == 0 {
		return nil
	}
	pairs, err := conflict.Cached(w.Repo.Git, filepath.Join(w.LogsDir(), "conflicts.cache"), mainSHA, tips)
	if err != nil {
		return nil
	}
	out := map[string][]string{}
	for _, p := range pairs {
		out[p.A] = append(out[p.A], p.B)
		if p.B != conflict.Main {
			out[p.B] = append(out[p.B], p.A)
		}
	}
	return out
}

// Running lists the runs with a run_start and no later run_end of the same
// task, agent and attempt, nor a later transition of their task (a
// takeover, a release, a submit: whatever the run's watcher left unsaid,
// the run is over), oldest first; of one task, the latest only.
func Running(evs []events.Event) []Run {
	type key struct {
		task, agent string
		attempt     int
	}
	open := map[key]Run{}
	latest := map[string]key{}
	var order []key
	for _, e := range evs {
		if endsRuns[e.Action] {
			if k, ok := latest[e.TaskID()]; ok {
				delete(open, k)
			}
			continue
		}
		if e.Action != "run_start" && e.Action != "run_end" {
			continue
		}
		agent, _ := e.Details["agent"].(string)
		attempt, _ := e.Details["attempt"].(float64)
		k := key{e.TaskID(), agent, int(attempt)}
		if e.Action == "run_end" {
			delete(open, k)
			continue
		}
		log, _ := e.Details["log"].(string)
		holder, _ := e.Details["holder"].(string)
		if _, seen := open[k]; !seen {
			order = append(order, k)
		}
		if old, ok := latest[k.task]; ok && old != k {
			// A task has one run at a time: an older one was left
			// unended by a watcher that died.
			delete(open, old)
		}
		open[k] = Run{Task: k.task, Agent: agent, Attempt: k.attempt, Log: log, Since: e.TS, holder: holder, actor: e.Actor}
		latest[k.task] = k
	}
	var out []Run
	for _, k := range order {
		if r, ok := open[k]; ok {
			out = append(out, r)
			delete(open, k)
		}
	}
	return out
}

// endsRuns are the transitions of a task that end any run on it.
var endsRuns = map[string]bool{"claim": true, "submit": true, "release": true, "block": true, "lease_expired": true,
	"approve": true, "reject": true, "unblock": true, "cancel": true}

// runs says whether r is the run of DOING task s now: the one its current
// holder started (runs recorded before holders were, by its assignee).
func (r Run) runs(s workflow.Summary) bool {
	if r.holder != "" && s.LeaseHolder != "" {
		return r.holder == s.LeaseHolder
	}
	return r.actor == s.AssignedTo
}

// Gone reports whether the watcher of a run shown running has died (or
// its lease run out) since the board was read: a death changes no file,
// so the live board asks this every second rather than wait for one.
func (b *Board) Gone(now time.Time) bool {
	for _, r := range b.Runs {
		if r.lease.Holder != "" && lease.Check(r.lease, now, b.grace, b.host).Gone() {
			return true
		}
	}
	return false
}

// lastSign is the last event of a task: when its lost run was last known
// alive (a lease renewal, at the latest).
func lastSign(evs []events.Event, id string) time.Time {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].TaskID() == id {
			return evs[i].TS
		}
	}
	return time.Time{}
}

// card is the card of task id (a zero Card when there is none).
func (b *Board) card(id string) Card {
	for _, cs := range b.Columns {
		for _, c := range cs {
			if c.ID == id {
				return c
			}
		}
	}
	return Card{}
}

// setReview fills c's review from the task's frontmatter f. A QA task
// whose submitted head is not the one reviewed waits for its review (R?):
// the verdict of an earlier head says nothing of it.
func (c *Card) setReview(f map[string]any) {
	str := func(k string) string { v, _ := f[k].(string); return v }
	verdict, head := str(task.KeyReviewVerdict), str(task.KeyReviewHead)
	if verdict == "" {
		return
	}
	c.Review = cli.Escape(review.Describe(verdict, str(task.KeyReviewer), head, prNumberOf(f[task.KeyReviewRounds])))
	c.ReviewMark = review.Marker(verdict)
	if c.Bucket == workflow.QA && head != str(task.KeySubmittedSHA) {
		c.ReviewMark = "R?"
		c.Review = "waits for its review (the last: " + c.Review + ")"
	}
}
