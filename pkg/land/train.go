package land

import (
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// The merge queue's train (DESIGN §26, stack: true): while a batch
// builds, a task submitted meanwhile that is stacked on one of its tasks
// need not wait for that batch to land. It is staged on the batch's
// staged top (its own commits replayed onto it, as in the batch itself)
// and built at once, in its own worktree, beside the batch's build: a car
// behind it. Cars land strictly in order, each once the one before landed
// whole; main then is exactly the commit the car behind was built on. When
// a car does not land whole (a build bisected, a landing that failed or
// lost a race), every car behind it was built on commits main does not
// get: their builds are thrown away (waited for, never landed) and their
// tasks go back to their submitted heads, to be staged again like any
// task of the queue. A crash leaves what a killed batch leaves: staged
// branches with their intents, which the next approve undoes.

// car is one batch of the train: its stack and, once its build (and
// bisection) is over, what bisect found.
type car struct {
	stack       []*stacked
	done        chan struct{}
	good, after []*stacked
	culprit     *stacked
	builds      int
	own         *workflow.Workflow
}

// followEvery is how often the queue looks for tasks to stage behind a
// building batch.
const followEvery = 200 * time.Millisecond

// trains: the queue stages cars behind a building batch. Only with stack:
// true and a build_command to wait for; not with queue_ci: forge, whose
// candidate branches are pushed one at a time.
func (q *queue) trains() bool {
	return q.w.Config.Stack && q.ci == nil && strings.TrimSpace(q.w.Config.BuildCommand) != ""
}

// depart starts the build of a car: in the background, on a workflow of
// its own, when trains run; else at once, as the queue always did.
func (q *queue) depart(stack []*stacked) *car {
	c := &car{stack: stack, done: make(chan struct{})}
	if !q.trains() || len(stack) == 0 {
		c.good, c.culprit, c.after = q.bisect(stack, q.build)
		close(c.done)
		return c
	}
	// The build reads the configuration and writes its logs only: a
	// workflow (and repository) of its own keeps it off the queue's,
	// which stages and lands meanwhile.
	own, err := workflow.Open(q.w.Repo.Root)
	if err != nil {
		c.good, c.culprit, c.after = q.bisect(stack, q.build)
		close(c.done)
		return c
	}
	own.Stderr = q.w.Stderr
	c.own = own
	go func() {
		defer close(c.done)
		c.good, c.culprit, c.after = q.bisect(stack, c.build)
	}()
	return c
}

// build is queue.build for a car built in the background: build_command
// alone (trains do not run with queue_ci: forge), counted on the car.
func (c *car) build(s *stacked) []gate.RunResult {
	runs, _, err := qa.Run(c.own, s.e.Task, s.dir, time.Now().UTC(), "build")
	if err != nil {
		return []gate.RunResult{{Name: "build", Command: c.own.Config.BuildCommand, ExitCode: -1, Tail: []string{err.Error()}}}
	}
	c.builds++
	return runs[:1]
}

// wait waits for the car's build and counts it.
func (q *queue) wait(c *car) {
	<-c.done
	q.res.Builds += c.builds
	c.builds = 0
}

// follow waits for the train's first car to be built, staging behind the
// last car, meanwhile, the tasks stacked on a task of the train (from
// pending, or submitted since the queue began).
func (q *queue) follow(train *[]*car, pending *[]string) {
	head := (*train)[0]
	if !q.trains() {
		q.wait(head)
		return
	}
	tick := time.NewTicker(followEvery)
	defer tick.Stop()
	for {
		select {
		case <-head.done:
			q.wait(head)
			return
		case <-tick.C:
		}
		if osx.Interrupted() {
			continue
		}
		ids := q.followers(*train, pending)
		if len(ids) == 0 {
			continue
		}
		last := (*train)[len(*train)-1]
		tip := last.stack[len(last.stack)-1].a.merged
		var stack []*stacked
		for _, id := range ids {
			if s := q.stage(id, tip); s != nil {
				stack = append(stack, s)
				tip = s.a.merged
				q.stacked = append(q.stacked, id)
			}
		}
		if len(stack) > 0 {
			*train = append(*train, q.depart(stack))
			faults.CrashPoint("queue", "train")
		}
	}
}

// followers takes, up to queue_batch, the tasks to stage behind the
// train: those of pending stacked on a task of the train, then QA tasks
// the queue had not seen, stacked on one (or on one taken before them),
// that nothing holds.
func (q *queue) followers(train []*car, pending *[]string) []string {
	w := q.w
	on := map[string]bool{}
	for _, c := range train {
		for _, s := range c.stack {
			on[s.e.ID] = true
		}
	}
	var ids []string
	keep := make([]string, 0, len(*pending))
	for _, id := range *pending {
		if on[q.parent[id]] && len(ids) < w.Config.QueueBatch {
			ids = append(ids, id)
			on[id] = true
			continue
		}
		keep = append(keep, id)
	}
	*pending = keep
	inQA, _, err := w.InBucket(workflow.QA)
	if err != nil {
		return ids
	}
	var ts []*task.Task
	for _, e := range inQA {
		if e.Task == nil || q.seen[e.ID] {
			continue
		}
		if waits, _ := holdOf(e.Task, q.gate, func(t *task.Task) string { return localOnly(w, t) }); waits != "" {
			continue
		}
		ts = append(ts, e.Task)
	}
	queueOrder(ts)
	for _, t := range stack.ChildAfterParent(ts) {
		if len(ids) < w.Config.QueueBatch && on[t.Str(task.KeyStackedOn)] {
			ids = append(ids, t.ID())
			on[t.ID()] = true
			q.seen[t.ID()], q.parent[t.ID()] = true, t.Str(task.KeyStackedOn)
		}
	}
	return ids
}

// stopTrain waits for every car's build and puts their tasks back at
// their submitted heads (Ctrl-C: nothing landed or rejected).
func (q *queue) stopTrain(train []*car) (n int, err error) {
	for _, c := range train {
		q.wait(c)
		for _, s := range c.stack {
			if uerr := unstage(q.w, s.g, s.e.Task); uerr != nil && err == nil {
				err = uerr
			}
			n++
		}
	}
	return n, err
}

// derail throws away the cars behind one that did not land whole: their
// builds ran on commits main will not hold. Their tasks go back to their
// submitted heads; their IDs are returned, in order, to be staged again.
func (q *queue) derail(train []*car) ([]string, error) {
	var ids []string
	for _, c := range train {
		q.wait(c)
		for _, s := range c.stack {
			if err := unstage(q.w, s.g, s.e.Task); err != nil {
				return nil, err
			}
			ids = append(ids, s.e.ID)
		}
	}
	return ids, nil
}
