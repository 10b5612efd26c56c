package verb

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/conflict"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/land"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/usage"
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
	Buckets []string `long:"bucket" value-name:"BUCKET" description:"List only the tasks in BUCKET: READY, DOING, QA, DONE or BLOCKED (repeatable)"`
	Since   string   `long:"since" value-name:"WHEN" description:"List only the tasks created, started, submitted or completed at or after WHEN: RFC 3339, a date (2026-11-24) or a time ago (90m, 24h)"`
}

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
	// buildUntrusted: validate and approve would refuse every QA task.
	buildUntrusted bool
	entries        []workflow.Summary
	rel            func(string) string
	// relDir maps each bucket's directory (with a trailing separator) to
	// its path from the root: one filepath.Rel per bucket, not per task.
	relDir  map[string]string
	locked  map[string]lock.Status
	stalled map[string]time.Duration
	// waiting holds the READY tasks whose depends_on are not all DONE,
	// which claim would refuse, with those dependencies.
	waiting map[string][]string
	// conflicts are the predicted conflicts of in-flight tasks, by task.
	conflicts map[string][]predicted
	// waits says why claim (READY) or unblock (BLOCKED) would refuse a
	// task now; such a task gets no suggest, so none is ever refused.
	waits map[string]string
	// failedQA holds the QA tasks whose last gate run failed: approve
	// would fail the same way, reject is what is next.
	failedQA map[string]bool
	// prs holds the QA tasks whose pull request is open (landing: pr):
	// only git burl sync moves them on.
	prs map[string]bool
	// prChecks is the checks' state of each open request as the last
	// settle round saw it (by number).
	prChecks map[string]string
}

// refState is, from one git call, the last commit time of every local task
// branch and the tips of the workflow branch and of its remote-tracking
// ref ("" when missing): rev-list is only needed when the two differ.
func refState(w *workflow.Workflow) (activity map[string]time.Time, tips map[string]string, local, remote string) {
	activity = map[string]time.Time{}
	tips = map[string]string{}
	localRef := "refs/heads/" + w.Repo.Branch
	remoteRef := gitx.Tracking(w.Config.Remote, w.Repo.Branch)
	res, err := w.Repo.Git.Run("for-each-ref", "--format=%(refname) %(objectname) %(committerdate:unix)",
		"refs/heads/task-*", "refs/heads/"+w.Config.MainBranch, gitx.Tracking(w.Config.Remote, w.Config.MainBranch), localRef, remoteRef)
	if err != nil {
		return activity, tips, "", ""
	}
	for _, l := range strings.Split(res, "\n") {
		f := strings.Fields(l)
		if len(f) != 3 {
			continue
		}
		switch f[0] {
		case localRef:
			local = f[1]
		case remoteRef:
			remote = f[1]
		default:
			if n, err := strconv.ParseInt(f[2], 10, 64); err == nil {
				activity[strings.TrimPrefix(f[0], "refs/heads/")] = time.Unix(n, 0)
			}
			tips[strings.TrimPrefix(f[0], "refs/heads/")] = f[1]
		}
	}
	return activity, tips, local, remote
}

func (c *statusCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, usageErr("status", "takes no arguments")
	}
	f, err := c.filter()
	if err != nil {
		return nil, err
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	// Without --json (or with a filter that leaves DONE out) DONE is only
	// counted: its summaries are a history's worth.
	withDone := ctx.JSON && f.lists(workflow.Done)
	entries, err := w.Summaries(ctx.JSON, withDone)
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
	activity, tips, local, remote := refState(w)
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
	out.Untrusted, out.buildUntrusted = untrustedConfig(w)
	for _, b := range workflow.Buckets {
		out.Counts[string(b)] = 0
	}
	order := sortEntries(entries)
	stale := time.Duration(w.Config.LockStaleMinutes) * time.Minute
	out.stalled = map[string]time.Duration{}
	out.rel = w.Rel
	out.relDir = map[string]string{}
	for _, b := range workflow.Buckets {
		out.relDir[w.BucketDir(b)+string(filepath.Separator)] = w.Rel(w.BucketDir(b)) + "/"
	}
	done := map[string]bool{}
	for _, e := range entries {
		if e.Err == nil && e.Bucket == workflow.Done {
			done[e.ID] = true
		}
	}
	files := map[string][]string{}
	for _, e := range entries {
		if e.ID != "" {
			files[e.ID] = append(files[e.ID], w.Rel(e.Path))
		}
	}
	if !withDone {
		// DONE only counted, and looked at for copies of open tasks (doctor
		// checks the rest of the history); the dependencies READY tasks
		// wait for are looked up newest month first.
		if out.Counts[string(workflow.Done)], out.Cancelled, err = w.DoneCounts(); err != nil {
			return nil, err
		}
		var open []string
		var deps []string
		for _, e := range entries {
			open = append(open, e.Path)
			if e.Bucket == workflow.Ready {
				deps = append(deps, e.DependsOn...)
			}
		}
		copies, err := w.DoneCopies(open)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			for _, c := range copies[e.Path] {
				files[e.ID] = append(files[e.ID], w.Rel(c))
			}
		}
		if done, err = w.DoneAmong(deps); err != nil {
			return nil, err
		}
	}
	for id, ps := range files {
		if len(ps) > 1 {
			sort.Strings(ps)
			out.Duplicates = append(out.Duplicates, duplicate{ID: id, Paths: ps})
		}
	}
	sort.Slice(out.Duplicates, func(i, j int) bool { return out.Duplicates[i].ID < out.Duplicates[j].ID })
	out.waiting = map[string][]string{}
	out.entries = make([]workflow.Summary, 0, len(entries))
	for _, i := range order {
		e := entries[i]
		if e.Err != nil {
			out.Malformed = append(out.Malformed, malformed{Path: w.Rel(e.Path), Error: e.Err.Error()})
			continue
		}
		out.Counts[string(e.Bucket)]++
		if e.Resolution == task.ResolutionCancelled {
			out.Cancelled++
		}
		out.Usage.add(e.Fields)
		if e.Bucket == workflow.Ready {
			for _, d := range e.DependsOn {
				if !done[d] {
					out.waiting[e.ID] = append(out.waiting[e.ID], d)
				}
			}
		}
		if e.Bucket == workflow.Doing {
			// Stalled: no commit on the task branch (and no claim) for longer
			// than lock_stale_minutes — likely a dead worker (git burl release).
			last := activity[e.Branch]
			if st, err := time.Parse(time.RFC3339, e.StartedAt); err == nil && st.After(last) {
				last = st
			}
			if idle := time.Since(last); !last.IsZero() && idle > stale {
				out.stalled[e.ID] = idle
			}
		}
		out.entries = append(out.entries, e)
	}
	out.waits, out.failedQA = waitsAndFailures(w, out.entries, done, out.waiting, out.locked, tips)
	out.prs = map[string]bool{}
	for _, e := range out.entries {
		if e.Bucket == workflow.QA && e.PRNumber != "" {
			out.prs[e.ID] = true
		}
	}
	if len(out.prs) > 0 {
		out.prChecks = land.PRChecks(w)
	}
	out.conflicts = predictedConflicts(w, out.entries, tips)
	for _, d := range out.Duplicates {
		// Every verb refuses an ID with two files (exit 1).
		out.waits[d.ID] = "has more than one file (" + strings.Join(d.Paths, ", ") + "): keep one"
	}
	// Filtered last: what a listed task waits for may be one not listed.
	out.entries = f.apply(out.entries)
	return out, nil
}

// waitsAndFailures finds what status must not suggest: READY tasks claim
// would refuse now (the reasons in claim's words), BLOCKED tasks unblock
// would refuse, and QA tasks whose last validate or approve failed.
func waitsAndFailures(w *workflow.Workflow, es []workflow.Summary, done map[string]bool,
	deps map[string][]string, locked map[string]lock.Status, tips map[string]string) (map[string]string, map[string]bool) {
	waits := map[string]string{}
	failed := map[string]bool{}
	var doing []workflow.Summary
	blocked := map[string]bool{}
	for _, e := range es {
		if e.Bucket == workflow.Doing {
			doing = append(doing, e)
		}
		if e.Bucket == workflow.Blocked {
			blocked[e.ID] = true
		}
	}
	capFull := ""
	if max := w.Config.MaxParallel; max > 0 && len(doing) >= max {
		capFull = workflow.CapReason(max, len(doing))
	}
	var doingScopes *gate.Index
	if w.Config.ConflictPolicy == "fail" && len(doing) > 0 {
		ss := make([]gate.Scope, len(doing))
		for i, d := range doing {
			ss[i] = summaryScope(d)
		}
		doingScopes = gate.NewIndex(ss)
	}
	for _, e := range es {
		var why []string
		switch e.Bucket {
		case workflow.Ready:
			if e.Held != "" {
				why = append(why, workflow.HeldReason(e.ID, e.Held))
			}
			if d := deps[e.ID]; len(d) > 0 {
				r := workflow.DepsReason(d)
				for _, x := range d {
					if blocked[x] {
						// Not work in progress: a human must act on it.
						r += fmt.Sprintf(" (%s is BLOCKED: git burl show %s says why)", x, x)
					}
				}
				why = append(why, r)
			}
			if doingScopes != nil {
				if i, o := doingScopes.First(summaryScope(e)); i >= 0 {
					why = append(why, workflow.OverlapReason(doing[i].ID, o))
				}
			}
			if capFull != "" {
				why = append(why, capFull)
			}
			if l, ok := locked[e.ID]; ok {
				why = append(why, "its lock is held: "+l.Describe())
			}
		case workflow.Blocked:
			var unmet []string
			for _, d := range e.DependsOn {
				if !done[d] {
					unmet = append(unmet, d)
				}
			}
			if len(unmet) > 0 {
				why = append(why, workflow.DepsReason(unmet))
			}
		case workflow.Doing:
			// submit refuses a branch without commits of its own.
			if tip := tips[e.Branch]; tip != "" && tip == e.BaseSHA {
				why = append(why, "waits for its worker's first commit on "+e.Branch)
			}
		case workflow.QA:
			failed[e.ID] = e.GateFailed
		}
		if r := e.ScopeRequest; r != "" {
			why = append(why, fmt.Sprintf("for a human to grant its agent's scope request (%s) with git burl scope %s, or refuse it with git burl reject", r, e.ID))
		}
		if len(why) > 0 {
			waits[e.ID] = strings.Join(why, "; ")
		}
	}
	return waits, failed
}

// summaryScope is scopeOf for a status summary.
func summaryScope(s workflow.Summary) gate.Scope {
	return gate.Scope{Affects: s.Affects, AffectsGlobs: s.AffectsGlobs, MustNotTouch: s.MustNotTouch}
}

// suggestFor is the command status proposes for a task, "" when it knows
// that command would be refused (wait says why).
func (o *statusOut) suggestFor(b workflow.Bucket, id string) (next, wait string) {
	if _, ok := o.stalled[id]; ok {
		return "git burl release " + id, ""
	}
	if why, ok := o.waits[id]; ok {
		return "", why
	}
	if o.prs[id] {
		// Approve again would only update the open request; merging it
		// is the forge's, and sync records what the forge did.
		return "git burl sync", ""
	}
	if o.failedQA[id] {
		return fmt.Sprintf(`git burl reject %s --reason "its last gate run failed; see the QA report"`, id), ""
	}
	if b == workflow.QA && o.buildUntrusted {
		return "git burl trust", ""
	}
	return workflow.Suggest(b, id), ""
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
	cur := workflow.Bucket("")
	for _, e := range o.entries {
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
		next, wait := o.suggestFor(e.Bucket, e.ID)
		if idle, ok := o.stalled[e.ID]; ok {
			line += fmt.Sprintf("  [stalled: no activity for %s]", idle.Round(time.Minute))
			next += " (if its worker is gone)"
		}
		if r := e.BlockedReason; r != "" {
			// The summary: the whole text is in git burl show's QA report.
			line += "\n            reason: " + cli.Escape(r)
		}
		switch {
		case strings.HasPrefix(wait, "waits for"):
			line += "\n            next: " + wait
		case wait != "":
			line += "\n            next: waits: " + wait
		case next != "":
			line += "\n            next: " + next
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
			fmt.Fprintf(w, "  %s  %s\n", l.Path, l.Describe())
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
