package views

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/conflict"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/landsync"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/next"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Status is `git burl status`: what cmd/git-burl-status runs. Only the
// verbs a binary names are linked into it.
func Status() cli.Command { return &statusCmd{} }

type statusCmd struct {
	cli.JSONFlag
	// The filters an agent that polls uses: what it lists, never the
	// counts, which stay whole.
	Open    bool     `long:"open" description:"List only the tasks that are not DONE (DONE is still counted): costs what 100 tasks cost, whatever the history"`
	Buckets []string `long:"bucket" value-name:"BUCKET" description:"List only the tasks in BUCKET: READY, DOING, QA, DONE, BLOCKED or PROPOSED (repeatable)"`
	Since   string   `long:"since" value-name:"WHEN" description:"List only the tasks created, started, submitted or completed at or after WHEN: RFC 3339, a date (2026-11-24) or a time ago (90m, 24h)"`
}

// Brief: status is run in a loop and allocates ~12 MB at 10,000 tasks,
// under the soft memory limit, so its GC runs only at that limit (cli.Main);
// in process (git burl mcp) it has the server's GC.
func (*statusCmd) Brief() {}

type malformed struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// duplicate is one task ID with several files: no verb will act on it
// until a human keeps one.
type duplicate struct {
	ID    string   `json:"id"`
	Paths []string `json:"paths"`
}

type remoteState struct {
	Ref    string `json:"ref"`
	Ahead  int    `json:"ahead"`
	Behind int    `json:"behind"`
}

type statusOut struct {
	Counts map[string]int `json:"counts"`
	// Cancelled is how many of DONE's tasks ended without landing
	// (resolution: cancelled): DONE less Cancelled is what landed.
	Cancelled int `json:"cancelled"`
	// Tasks (JSON "tasks") are written by StreamJSON from entries.
	Locks     []lock.Status `json:"locks"`
	Malformed []malformed   `json:"malformed"`
	// Duplicates are IDs with more than one file.
	Duplicates []duplicate `json:"duplicates"`
	// Remote compares the local workflow branch with the remote's as of the
	// last fetch (status itself never touches the network).
	Remote *remoteState `json:"remote,omitempty"`
	// NotOnRemoteMain are the DONE tasks whose work is in local main but
	// not on the remote's (as of the last fetch): DONE that must not be
	// published without it (DESIGN §15).
	NotOnRemoteMain []string `json:"done_not_on_remote_main"`
	// Usage is what agent runs on the listed tasks cost.
	Usage usageOut `json:"usage"`
	// Untrusted are the commands of config.yaml and agents.yaml that are
	// not trusted on this machine (file:key), which git burl trust shows.
	Untrusted []string `json:"untrusted"`
	// all are the summaries read; order lists the ones shown, in order.
	all   []workflow.Summary
	order []int32
	rel   func(string) string
	// fields reads a task's fields (Workflow.FieldsOf).
	fields func(*workflow.Summary) json.RawMessage
	// read reads them also where fields, without --json, does not: for
	// the few tasks that may be stacked (stack.On).
	read func(*workflow.Summary) json.RawMessage
	// relDir maps each bucket's directory (with a trailing separator) to
	// its path from the root: one filepath.Rel per bucket, not per task.
	relDir map[string]string
	locked map[string]lock.Status
	// dup are the IDs of Duplicates.
	dup map[string]bool
	// next decides each task's next step (package next).
	next *next.Set
	// conflicts are the predicted conflicts of in-flight tasks, by task.
	conflicts map[string][]predicted
	// prChecks is the checks' state of each open request as the last
	// settle round saw it (by number).
	prChecks map[string]string
	cockpit  cockpit
}

func (c *statusCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, cli.UsageError("status", "takes no arguments")
	}
	f, err := c.filter()
	if err != nil {
		return nil, err
	}
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	// Without --json (or with a filter that leaves DONE out) DONE is only
	// counted: its summaries are a history's worth.
	withDone := ctx.JSON && f.lists(workflow.Done)
	// With --json, each task's fields are read from the status cache as
	// its object is written, not all held at once.
	var entries []workflow.Summary
	if ctx.JSON {
		entries, err = w.SummariesLazy(withDone)
	} else {
		entries, err = w.Summaries(false, withDone)
	}
	if err != nil {
		return nil, err
	}
	locks, err := w.Locks.List()
	if err != nil {
		return nil, err
	}
	out := &statusOut{Counts: map[string]int{}, Usage: usageOut{ByAgent: usage.Table{}}, Locks: locks, Malformed: []malformed{}, Duplicates: []duplicate{}, locked: map[string]lock.Status{}}
	if out.Locks == nil {
		out.Locks = []lock.Status{}
	}
	for _, l := range locks {
		out.locked[l.Name] = l
	}
	refs := next.ReadRefs(w)
	tips, local, remote := refs.Tips, refs.Local, refs.Remote
	switch {
	case remote == "":
		// Never fetched: nothing to compare with.
	case remote == local:
		out.Remote = &remoteState{Ref: w.Config.Remote + "/" + w.Repo.Branch}
	default:
		if ahead, behind, ok := w.Divergence(); ok {
			out.Remote = &remoteState{Ref: w.Config.Remote + "/" + w.Repo.Branch, Ahead: ahead, Behind: behind}
		}
	}
	off, err := integrate.OffRemoteAt(w, tips[w.Config.MainBranch], tips[gitx.Tracking(w.Config.Remote, w.Config.MainBranch)])
	if err != nil {
		return nil, err
	}
	out.NotOnRemoteMain = integrate.IDs(off)
	var buildUntrusted bool
	out.Untrusted, buildUntrusted = verb.UntrustedConfig(w)
	out.cockpit = readCockpit(w)
	// PROPOSED is counted where it holds a task: the counts of a workflow
	// without proposals stay the five of PRD 9.1.
	for _, b := range workflow.Lanes {
		out.Counts[string(b)] = 0
	}
	order := sortEntries(entries)
	out.rel = w.Rel
	out.relDir = map[string]string{}
	for _, b := range workflow.Buckets {
		out.relDir[w.BucketDir(b)+string(filepath.Separator)] = w.Rel(w.BucketDir(b)) + "/"
	}
	// A task ID's other files (first: the index of its first summary),
	// found without a path per task: over thousands of tasks, keeping
	// garbage small is what keeps status fast (the GC works against a
	// soft memory limit).
	first := make(map[string]int32, len(entries))
	files := map[string][]string{}
	for i, e := range entries {
		if e.ID == "" {
			continue
		}
		if j, seen := first[e.ID]; seen {
			if files[e.ID] == nil {
				files[e.ID] = []string{w.Rel(entries[j].Path)}
			}
			files[e.ID] = append(files[e.ID], w.Rel(e.Path))
			continue
		}
		first[e.ID] = int32(i)
	}
	var deps []string
	for _, e := range entries {
		if e.Bucket == workflow.Ready || e.Bucket == workflow.Blocked {
			deps = append(deps, e.DependsOn...)
		}
	}
	done := map[string]bool{}
	if withDone {
		for _, d := range deps {
			if i, ok := first[d]; ok && entries[i].Err == nil && entries[i].Bucket == workflow.Done {
				done[d] = true
			}
		}
	} else {
		// DONE only counted, and looked at for copies of open tasks (doctor
		// checks the rest of the history); the dependencies READY and
		// BLOCKED tasks wait for are looked up newest month first.
		if out.Counts[string(workflow.Done)], out.Cancelled, err = w.DoneCounts(); err != nil {
			return nil, err
		}
		open := make([]string, len(entries))
		for i, e := range entries {
			open[i] = e.Path
		}
		copies, err := w.DoneCopies(open)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			for _, c := range copies[e.Path] {
				if files[e.ID] == nil {
					files[e.ID] = []string{w.Rel(e.Path)}
				}
				files[e.ID] = append(files[e.ID], w.Rel(c))
			}
		}
		if done, err = w.DoneAmong(deps); err != nil {
			return nil, err
		}
	}
	out.dup = map[string]bool{}
	for id, ps := range files {
		sort.Strings(ps)
		out.Duplicates = append(out.Duplicates, duplicate{ID: id, Paths: ps})
		out.dup[id] = true
	}
	sort.Slice(out.Duplicates, func(i, j int) bool { return out.Duplicates[i].ID < out.Duplicates[j].ID })
	out.all, out.fields = entries, func(e *workflow.Summary) json.RawMessage { return e.Fields }
	if ctx.JSON {
		out.fields = w.FieldsOf
	}
	out.read = w.FieldsOf
	out.order = make([]int32, 0, len(order))
	for _, i := range order {
		e := &entries[i]
		if e.Err != nil {
			out.Malformed = append(out.Malformed, malformed{Path: w.Rel(e.Path), Error: e.Err.Error()})
			continue
		}
		out.Counts[string(e.Bucket)]++
		if e.Resolution == task.ResolutionCancelled {
			out.Cancelled++
		}
		out.order = append(out.order, i)
	}
	if out.next, err = next.Gather(w, next.Inputs{Tasks: entries, Done: done, Locks: locks, Refs: &refs,
		Duplicates: files, BuildUntrusted: buildUntrusted, Now: time.Now()}); err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.PRNumber != "" && e.Bucket == workflow.QA {
			out.prChecks = landsync.PRChecks(w)
			break
		}
	}
	out.conflicts = predictedConflicts(w, entries, tips)
	// Filtered last: what a listed task waits for may be one not listed.
	out.order = f.apply(out.fields, entries, out.order)
	return out, nil
}

// sortEntries returns the order in which claim would take the tasks:
// bucket, priority, creation time, ID. The keys are computed once and kept
// small: over thousands of tasks, sorting is most of status's own work.
func sortEntries(es []workflow.Summary) []int32 {
	type key struct {
		created int64 // as claim compares it: the instant, missing last
		order   int32 // bucket rank, then priority rank
		num, at int32
	}
	rank := map[workflow.Bucket]int32{}
	for i, b := range workflow.Buckets {
		rank[b] = int32(i)
	}
	keys := make([]key, len(es))
	for i, e := range es {
		k := key{order: rank[e.Bucket] << 8, at: int32(i), created: math.MaxInt64}
		if e.Err == nil {
			k.order |= int32(task.PriorityRank(e.Priority))
			if t, ok := workflow.ParseCreated(e.Created); ok {
				k.created = t.UnixNano()
			}
		}
		n, _ := task.IDNumber(e.ID)
		k.num = int32(n)
		keys[i] = k
	}
	slices.SortFunc(keys, func(a, b key) int {
		switch {
		case a.order != b.order:
			return cmp.Compare(a.order, b.order)
		case a.created != b.created:
			return cmp.Compare(a.created, b.created)
		case a.num != b.num:
			return cmp.Compare(a.num, b.num)
		}
		return cmp.Compare(a.at, b.at)
	})
	order := make([]int32, len(keys))
	for i, k := range keys {
		order[i] = k.at
	}
	return order
}

func (o *statusOut) Human(out io.Writer) {
	// One write for thousands of lines, not one each.
	w := bufio.NewWriter(out)
	defer w.Flush()
	var counts []string
	for _, b := range workflow.Buckets {
		if _, ok := o.Counts[string(b)]; !ok {
			continue
		}
		c := fmt.Sprintf("%s %d", b, o.Counts[string(b)])
		if b == workflow.Done && o.Cancelled > 0 {
			c += fmt.Sprintf(" (%d landed, %d cancelled)", o.Counts[string(b)]-o.Cancelled, o.Cancelled)
		}
		counts = append(counts, c)
	}
	fmt.Fprintln(w, strings.Join(counts, "  "))
	if r := o.Remote; r != nil && (r.Ahead > 0 || r.Behind > 0) {
		fmt.Fprintf(w, "workflow branch: %d commit(s) ahead of %s, %d behind (as of the last fetch; git burl sync)\n", r.Ahead, r.Ref, r.Behind)
	}
	if ids := o.NotOnRemoteMain; len(ids) > 0 {
		fmt.Fprintf(w, "main: the work of DONE %s is in local main only, not on the remote's (as of the last fetch); git burl sync pushes main with the workflow branch\n", strings.Join(ids, ", "))
	}
	if len(o.Untrusted) > 0 {
		fmt.Fprintf(w, "not trusted on this machine (burl will not run them): %s; git burl trust shows them and asks\n", strings.Join(o.Untrusted, ", "))
	}
	o.cockpit.human(w)
	cur := workflow.Bucket("")
	for _, i := range o.order {
		e := &o.all[i]
		if e.Bucket == workflow.Done {
			continue
		}
		if e.Bucket != cur {
			cur = e.Bucket
			fmt.Fprintf(w, "\n%s\n", cur)
		}
		line := fmt.Sprintf("  %-9s %-8s %s", e.ID, e.Priority, cli.Escape(e.Title))
		if who := e.AssignedTo; who != "" && (cur == workflow.Doing || cur == workflow.QA) {
			line += "  (" + who + ")"
		}
		if l, ok := o.locked[e.ID]; ok {
			line += "  [locked: " + l.Describe() + "]"
		}
		if e.Held != "" {
			line += "  [held: " + cli.Escape(e.Held) + "]"
		}
		if p := stack.On(e, o.read); p != "" {
			// The next link of p's chain (DESIGN §26).
			line += "  ↳ on " + cli.Escape(p)
		}
		if e.PRNumber != "" && cur == workflow.QA {
			state := "open"
			if c := o.prChecks[e.PRNumber]; c != "" {
				state += ", checks " + cli.Escape(c)
			}
			line += "  [PR #" + e.PRNumber + " " + state + ": " + cli.Escape(e.PRURL) + "]"
		}
		for _, c := range o.conflicts[e.ID] {
			line += "  [conflicts with " + c.With + ": " + cli.Escape(strings.Join(c.Files, ", ")) + "]"
		}
		if cur == workflow.QA {
			line += o.cockpit.place(e.ID)
		}
		f := o.next.Facts(e)
		st := next.For(f)
		if f.Holder.Gone() {
			line += "  [lost: " + cli.Escape(f.Holder.Describe()) + "]"
		} else if f.Stalled > 0 {
			line += fmt.Sprintf("  [stalled: no activity for %s]", f.Stalled.Round(time.Minute))
		}
		if r := e.BlockedReason; r != "" {
			// The summary: the whole text is in git burl show's QA report.
			line += "\n            reason: " + cli.Escape(r)
		}
		if l := st.Line(); l != "" {
			line += "\n            next: " + l
		}
		fmt.Fprintln(w, line)
	}
	var other []lock.Status
	for _, l := range o.Locks {
		if _, isTask := task.IDNumber(l.Name); !isTask || l.Stale || l.Dead {
			other = append(other, l)
		}
	}
	if len(other) > 0 {
		fmt.Fprintln(w, "\nLocks")
		for _, l := range other {
			d := l.Describe()
			if l.Dead {
				d += "; the next burl command that needs it clears it"
			}
			fmt.Fprintf(w, "  %s  %s\n", l.Path, d)
		}
	}
	if len(o.Duplicates) > 0 {
		fmt.Fprintln(w, "\nDuplicate task IDs (no verb acts on them until one file is left; git burl doctor)")
		for _, d := range o.Duplicates {
			fmt.Fprintf(w, "  %s  %s\n", d.ID, strings.Join(d.Paths, ", "))
		}
	}
	if len(o.Malformed) > 0 {
		fmt.Fprintln(w, "\nMalformed task files (skipped)")
		for _, m := range o.Malformed {
			fmt.Fprintf(w, "  %s\n", m.Error)
		}
	}
}

// predicted is one conflict status shows on a task: the other task (or
// the main branch) and the files.
type predicted struct {
	With  string   `json:"with"`
	Files []string `json:"files"`
}

// predictedConflicts marks DOING and QA tasks whose committed work would
// conflict with another's or with main (git burl conflicts). Merges are
// remembered per pair of commits in logs/, so a status that finds no
// branch moved runs none; a prediction that cannot be made marks nothing.
func predictedConflicts(w *workflow.Workflow, es []workflow.Summary, tips map[string]string) map[string][]predicted {
	mainTip := tips[w.Config.MainBranch]
	var inflight []conflict.Tip
	for _, e := range es {
		if e.Bucket != workflow.Doing && e.Bucket != workflow.QA {
			continue
		}
		if t := tips[e.Branch]; t != "" && t != e.BaseSHA && gitx.ValidObjectID(t) {
			inflight = append(inflight, conflict.Tip{ID: e.ID, Head: t})
		}
	}
	if len(inflight) == 0 || !gitx.ValidObjectID(mainTip) {
		return nil
	}
	sort.Slice(inflight, func(i, j int) bool {
		a, _ := task.IDNumber(inflight[i].ID)
		b, _ := task.IDNumber(inflight[j].ID)
		return a < b
	})
	pairs, err := conflict.Cached(w.Repo.Git, filepath.Join(w.LogsDir(), "conflicts.cache"), mainTip, inflight)
	if err != nil {
		return nil
	}
	out := map[string][]predicted{}
	for _, p := range pairs {
		out[p.A] = append(out[p.A], predicted{With: p.B, Files: p.Files})
		if p.B != conflict.Main {
			out[p.B] = append(out[p.B], predicted{With: p.A, Files: p.Files})
		}
	}
	return out
}
