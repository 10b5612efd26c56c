package verb

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

func init() { register("status", func() cli.Command { return &statusCmd{} }) }

type statusCmd struct {
	cli.JSONFlag
}

type malformed struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

type remoteState struct {
	Ref    string `json:"ref"`
	Ahead  int    `json:"ahead"`
	Behind int    `json:"behind"`
}

type statusOut struct {
	Counts    map[string]int   `json:"counts"`
	Tasks     []map[string]any `json:"tasks"`
	Locks     []lock.Status    `json:"locks"`
	Malformed []malformed      `json:"malformed"`
	// Remote compares the local workflow branch with the remote's as of the
	// last fetch (status itself never touches the network).
	Remote  *remoteState `json:"remote,omitempty"`
	entries []workflow.Entry
	locked  map[string]lock.Status
	stalled map[string]time.Duration
}

// branchActivity is the last commit time of every local task branch, from
// one git call.
func branchActivity(w *workflow.Workflow) map[string]time.Time {
	out := map[string]time.Time{}
	res, err := w.Repo.Git.Run("for-each-ref", "--format=%(refname:short) %(committerdate:unix)", "refs/heads/task-*")
	if err != nil {
		return out
	}
	for _, l := range strings.Split(res, "\n") {
		name, ts, ok := strings.Cut(l, " ")
		if n, err := strconv.ParseInt(ts, 10, 64); ok && err == nil {
			out[name] = time.Unix(n, 0)
		}
	}
	return out
}

func (c *statusCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, usageErr("status", "takes no arguments")
	}
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := w.Scan()
	if err != nil {
		return nil, err
	}
	locks, err := w.Locks.List()
	if err != nil {
		return nil, err
	}
	out := &statusOut{Counts: map[string]int{}, Tasks: []map[string]any{}, Locks: locks, Malformed: []malformed{}, locked: map[string]lock.Status{}}
	if out.Locks == nil {
		out.Locks = []lock.Status{}
	}
	for _, l := range locks {
		out.locked[l.Name] = l
	}
	if ahead, behind, ok := w.Divergence(); ok {
		out.Remote = &remoteState{Ref: w.Config.Remote + "/" + w.Repo.Branch, Ahead: ahead, Behind: behind}
	}
	for _, b := range workflow.Buckets {
		out.Counts[string(b)] = 0
	}
	sortEntries(entries)
	activity := branchActivity(w)
	stale := time.Duration(w.Config.LockStaleMinutes) * time.Minute
	out.stalled = map[string]time.Duration{}
	for _, e := range entries {
		if e.Err != nil {
			out.Malformed = append(out.Malformed, malformed{Path: w.Rel(e.Path), Error: e.Err.Error()})
			continue
		}
		out.Counts[string(e.Bucket)]++
		m := taskObject(w, e)
		m["suggest"] = workflow.Suggest(e.Bucket, e.ID)
		_, m["locked"] = out.locked[e.ID]
		if e.Bucket == workflow.Doing {
			// Stalled: no commit on the task branch (and no claim) for longer
			// than lock_stale_minutes — likely a dead worker (git burl release).
			last := activity[e.Task.Branch()]
			if st, err := time.Parse(time.RFC3339, e.Task.Str(task.KeyStartedAt)); err == nil && st.After(last) {
				last = st
			}
			if idle := time.Since(last); !last.IsZero() && idle > stale {
				out.stalled[e.ID] = idle
				m["stalled"] = true
				m["suggest"] = "git burl release " + e.ID
			}
		}
		out.Tasks = append(out.Tasks, m)
		out.entries = append(out.entries, e)
	}
	return out, nil
}

// sortEntries orders tasks as claim would take them: bucket, priority,
// creation time, ID.
func sortEntries(es []workflow.Entry) {
	rank := map[workflow.Bucket]int{}
	for i, b := range workflow.Buckets {
		rank[b] = i
	}
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.Bucket != b.Bucket {
			return rank[a.Bucket] < rank[b.Bucket]
		}
		if a.Task != nil && b.Task != nil {
			if pa, pb := task.PriorityRank(a.Task.Priority()), task.PriorityRank(b.Task.Priority()); pa != pb {
				return pa < pb
			}
			if ca, cb := a.Task.Str(task.KeyCreated), b.Task.Str(task.KeyCreated); ca != cb {
				return ca < cb
			}
		}
		na, _ := task.IDNumber(a.ID)
		nb, _ := task.IDNumber(b.ID)
		return na < nb
	})
}

func (o *statusOut) Human(w io.Writer) {
	var counts []string
	for _, b := range workflow.Buckets {
		counts = append(counts, fmt.Sprintf("%s %d", b, o.Counts[string(b)]))
	}
	fmt.Fprintln(w, strings.Join(counts, "  "))
	if r := o.Remote; r != nil && (r.Ahead > 0 || r.Behind > 0) {
		fmt.Fprintf(w, "workflow branch: %d commit(s) ahead of %s, %d behind (as of the last fetch; git burl sync)\n", r.Ahead, r.Ref, r.Behind)
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
		line := fmt.Sprintf("  %-9s %-8s %s", e.ID, e.Task.Priority(), e.Task.Title())
		if who := e.Task.Str(task.KeyAssignedTo); who != "" && (cur == workflow.Doing || cur == workflow.QA) {
			line += "  (" + who + ")"
		}
		if l, ok := o.locked[e.ID]; ok {
			line += "  [locked: " + l.Describe() + "]"
		}
		next := workflow.Suggest(e.Bucket, e.ID)
		if idle, ok := o.stalled[e.ID]; ok {
			line += fmt.Sprintf("  [stalled: no activity for %s]", idle.Round(time.Minute))
			next = "git burl release " + e.ID + " (if its worker is gone)"
		}
		if next != "" {
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
	if len(o.Malformed) > 0 {
		fmt.Fprintln(w, "\nMalformed task files (skipped)")
		for _, m := range o.Malformed {
			fmt.Fprintf(w, "  %s\n", m.Error)
		}
	}
}
