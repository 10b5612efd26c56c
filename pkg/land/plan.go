package land

import (
	"fmt"
	"sort"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// What a QA task waits for (DESIGN §27), as approve --all --dry-run,
// status and the board say it; the names are pinned (status --json
// "queue".waits).
const (
	WaitsQueue        = "queue"         // the next approve --all lands it, in the first batch
	WaitsBatch        = "batch"         // the batches before its own land first
	WaitsParent       = "parent"        // stacked on a task that has not landed
	WaitsReview       = "review"        // agents.yaml's reviewer has not approved its head
	WaitsScopeRequest = "scope_request" // a human grants or refuses wider scope
	WaitsElsewhere    = "elsewhere"     // only the clone that submitted it has its commits
	WaitsChecks       = "checks"        // its pull request waits for the forge's checks and merge
)

// Place is one QA task's place in the merge queue as approve --all would
// take it now. Position and Batch are 0 for a task the queue leaves out.
type Place struct {
	ID       string `json:"id"`
	Position int    `json:"position,omitempty"`
	Batch    int    `json:"batch,omitempty"`
	// StackedOn is the parent a stacked task lands after.
	StackedOn string `json:"stacked_on,omitempty"`
	Waits     string `json:"waits"`
	Reason    string `json:"reason"`
}

// Label is the place in a few words, as status and the board draw it.
func (p Place) Label() string {
	if p.Position > 0 {
		return fmt.Sprintf("queue %d, batch %d", p.Position, p.Batch)
	}
	return "waits: " + p.Waits
}

// Plan is the queue's order and batches, every build assumed to pass: what
// approve --all --dry-run prints.
type Plan struct {
	// BatchSize is queue_batch, or 1 where every task lands alone
	// (merge_strategy: manual, landing: pr).
	BatchSize int `json:"batch_size"`
	// Batches are the task IDs of each build, in landing order.
	Batches [][]string `json:"batches"`
	// Places are every QA task: the queued ones in order, then the others.
	Places []Place `json:"queue"`
}

// holdOf is why the queue leaves t out now ("" when it takes it): the one
// question approve --all, its dry run and status ask. here reports why
// this clone cannot land t ("" when it can try).
func holdOf(t *task.Task, gate ReviewGate, here func(*task.Task) string) (waits, reason string) {
	if r := t.Str(task.KeyScopeRequest); r != "" {
		return WaitsScopeRequest, fmt.Sprintf("waits for a human to grant or refuse its scope request (%s): git burl scope %s ...", r, t.ID())
	}
	if why := gate.Wait(t); why != "" {
		return WaitsReview, why
	}
	if why := here(t); why != "" {
		return WaitsElsewhere, why
	}
	return "", ""
}

// queueOrder sorts QA entries into the queue's order.
func queueOrder(ts []*task.Task) {
	sort.SliceStable(ts, func(i, j int) bool { return task.QueueLess(ts[i], ts[j]) })
}

// PlanQueue is what approve --all would do with the QA tasks now, without
// doing any of it: the order, the batches of queue_batch, parents before
// the tasks stacked on them (a child of a task landing in this run right
// after it, in its batch when there is room, as the queue stages it), and
// what each task left out waits for. It reads only this clone: no fetch,
// no rebase, no build.
func PlanQueue(w *workflow.Workflow) (*Plan, error) {
	gate, err := Reviews(w)
	if err != nil {
		return nil, err
	}
	return planWith(w, gate, func(t *task.Task) string { return localOnly(w, t) })
}

// QueuePlaces is PlanQueue's places by task ID, for status and the board;
// nil when the review gate cannot be read (untrusted): status says that
// elsewhere.
func QueuePlaces(w *workflow.Workflow) map[string]Place {
	p, err := PlanQueue(w)
	if err != nil {
		return nil
	}
	m := make(map[string]Place, len(p.Places))
	for _, x := range p.Places {
		m[x.ID] = x
	}
	return m
}

// localOnly is elsewhere without its fetch: a plan changes nothing, not
// even a remote-tracking ref.
func localOnly(w *workflow.Workflow, t *task.Task) string {
	sub := t.Str(task.KeySubmittedSHA)
	if sub == "" || workspace.HaveCommit(w.Repo.Git, "", "", sub) {
		return ""
	}
	return fmt.Sprintf("waits for the clone that submitted it: its submitted commit %s is not in this clone (approve fetches branch %s from %s, if it was pushed)",
		gitx.Short(sub), t.Branch(), w.Config.Remote)
}

func planWith(w *workflow.Workflow, gate ReviewGate, here func(*task.Task) string) (*Plan, error) {
	inQA, _, err := w.InBucket(workflow.QA)
	if err != nil {
		return nil, err
	}
	p := &Plan{BatchSize: w.Config.QueueBatch, Batches: [][]string{}, Places: []Place{}}
	if w.Config.MergeStrategy == "manual" || w.Config.Landing == "pr" {
		p.BatchSize = 1
	}
	var ts []*task.Task
	var out []Place
	for _, e := range inQA {
		if e.Task == nil {
			continue
		}
		if n := PRNumber(e.Task); n > 0 && w.Config.Landing == "pr" {
			out = append(out, Place{ID: e.ID, Waits: WaitsChecks, Reason: fmt.Sprintf("waits for the forge's checks and merge of its pull request #%d (git burl sync settles it)", n)})
			continue
		}
		if waits, why := holdOf(e.Task, gate, here); waits != "" {
			out = append(out, Place{ID: e.ID, Waits: waits, Reason: why})
			continue
		}
		ts = append(ts, e.Task)
	}
	queueOrder(ts)
	// A child queued right after its parent is staged on the parent's
	// staged commit, in the parent's batch when it has room: one build
	// for both, the parent landed first (stackorder.go).
	queued := map[string]bool{}
	var run []*task.Task
	for _, t := range stack.ChildAfterParent(ts) {
		if why := stack.WaitsOutside(w, t, func(p string) bool { return queued[p] }); why != "" {
			parent := t.Str(task.KeyStackedOn)
			out = append(out, Place{ID: t.ID(), StackedOn: parent, Waits: WaitsParent,
				Reason: fmt.Sprintf("waits for %s, which it is stacked on and which %s", parent, why)})
			continue
		}
		queued[t.ID()] = true
		run = append(run, t)
	}
	if w.Config.Landing == "pr" {
		// approve --all opens every parent's request before its
		// children's (parentsFirst), each a batch of one.
		byID, parent := map[string]*task.Task{}, map[string]string{}
		ids := make([]string, len(run))
		for i, t := range run {
			ids[i], byID[t.ID()], parent[t.ID()] = t.ID(), t, t.Str(task.KeyStackedOn)
		}
		for i, id := range orderParentsFirst(ids, parent) {
			run[i] = byID[id]
		}
	}
	for i, t := range run {
		if i%p.BatchSize == 0 {
			p.Batches = append(p.Batches, []string{})
		}
		b := len(p.Batches)
		p.Batches[b-1] = append(p.Batches[b-1], t.ID())
		p.Places = append(p.Places, Place{ID: t.ID(), Position: len(p.Places) + 1, Batch: b, StackedOn: t.Str(task.KeyStackedOn), Waits: WaitsQueue})
	}
	for i := range p.Places {
		pl := &p.Places[i]
		pl.Reason = fmt.Sprintf("lands in the next approve --all: position %d, batch 1 of %d", pl.Position, len(p.Batches))
		if pl.Batch > 1 {
			pl.Waits = WaitsBatch
			pl.Reason = fmt.Sprintf("position %d: lands in batch %d of %d, after the batches before it", pl.Position, pl.Batch, len(p.Batches))
		}
		if pl.StackedOn != "" {
			pl.Reason += "; after " + pl.StackedOn + ", which it is stacked on"
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, _ := task.IDNumber(out[i].ID)
		b, _ := task.IDNumber(out[j].ID)
		return a < b
	})
	p.Places = append(p.Places, out...)
	return p, nil
}
