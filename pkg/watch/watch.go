// Package watch is the supervisor of `git burl watch` (DESIGN §10): it
// keeps the agents of agents.yaml busy on the backlog, one run being claim
// → prompt → agent in its own process group → commit → submit, and lands
// their work through the approve queue. Every state change goes through the
// verbs' own binaries, so watch adds no second path around the gates.
package watch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/burl-dev/burl/pkg/agentbox"
	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/drain"
	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/next"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/runcheck"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trustcheck"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Options are the command line of watch.
type Options struct {
	Dir      string
	Once     bool
	Interval time.Duration
	Stderr   io.Writer
	// Stop is closed on SIGINT/SIGTERM.
	Stop <-chan struct{}
}

// Run is one agent run, as --json reports it.
type Run struct {
	Task       string `json:"task"`
	Agent      string `json:"agent"`
	Attempt    int    `json:"attempt"`
	Exit       int    `json:"exit"`
	DurationMS int64  `json:"duration_ms"`
	Result     string `json:"result"`
	Log        string `json:"log"`
}

// Summary is watch's --json document.
type Summary struct {
	OK       bool     `json:"ok"`
	Done     []string `json:"done"`
	Blocked  []string `json:"blocked"`
	Rejected []string `json:"rejected"`
	Runs     []Run    `json:"runs"`
	// Stopped: watch was stopped by a signal before it was done.
	Stopped bool `json:"stopped"`
	// Drained: git burl drain ended this watch once its runs were done.
	Drained bool `json:"drained,omitempty"`
	// Halted is why watch ran nothing at the end: a run replaced a
	// directory of burl's state (DESIGN §19); "" otherwise.
	Halted string `json:"halted,omitempty"`
	// CannotStart are the agents whose program could not start here at
	// the end: nothing was claimed for them (DESIGN §20). One that left
	// READY work it would have claimed makes ok false.
	CannotStart []CannotStart `json:"cannot_start,omitempty"`
}

// Run results.
const (
	ResultSubmitted = "submitted"
	ResultFailed    = "failed"    // non-zero exit
	ResultTimeout   = "timeout"   // killed after the agent's timeout
	ResultUnchanged = "unchanged" // exit 0 but nothing to submit
	ResultGates     = "gates"     // commit or submit refused the work
	ResultStopped   = "stopped"   // watch was stopped
	ResultLost      = "lost"      // the task was taken from this watcher
	ResultTampered  = "tampered"  // it changed what no run may change (run_tampered)
)

type supervisor struct {
	opt  Options
	file *agents.File
	host string
	stop chan struct{}
	done chan struct{} // a job finished
	wg   sync.WaitGroup
	mu   sync.Mutex
	busy map[string]int  // running jobs per agent
	held map[string]bool // tasks this watcher runs
	// aside are the QA tasks this watcher does not give the queue now
	// (setAside).
	aside map[string]aside
	// foreign are the heads to review found only in another clone, and
	// when (haveHead).
	foreign map[string]time.Time
	touch   map[string]bool
	reject  map[string]bool
	// refused are the gate violations of each task's last refused submit,
	// for the fix a human reads when the task is blocked.
	refused map[string]gate.Violations
	runs    []Run
	// w is the workflow the last tick opened, for the trust checks of
	// the jobs; fileErr is why agents.yaml no longer loads ("" when it
	// does); said holds the messages already said once.
	w       *workflow.Workflow
	fileErr string
	said    map[string]bool
	// settled is when the open pull requests were last settled.
	settled time.Time
	// check confines the runs and checks what they did (DESIGN §19).
	check *runcheck.Checker
	// missing are the agents whose program cannot start (canStart).
	missing map[string]CannotStart
	// queue is the approve queue's run in the background.
	queue queueRun
	// draining: git burl drain asked this watch to claim nothing more
	// and exit once its runs are done (DESIGN §27).
	draining bool
	// spentToday: the day's runs reached max_cost_usd_per_day, so this
	// watch claims nothing (withinBudget).
	spentToday bool
	// poll is when the rounds last pulled the workflow branch (pullDue).
	poll poll
}

// Watch runs the supervisor until --once finds nothing left, or Stop.
func Watch(opt Options) (*Summary, error) {
	w, err := workflow.Open(opt.Dir)
	if err != nil {
		return nil, err
	}
	f, err := agents.Load(filepath.Join(w.Dir, agents.FileName))
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	s := &supervisor{opt: opt, file: f, host: host, stop: make(chan struct{}), done: make(chan struct{}, 1), w: w, said: map[string]bool{},
		busy: map[string]int{}, held: map[string]bool{}, aside: map[string]aside{}, foreign: map[string]time.Time{}, touch: map[string]bool{}, reject: map[string]bool{}, refused: map[string]gate.Violations{}}
	s.check = s.checker()
	if err := trustcheck.AnyAgent(w, s.file); err != nil {
		return nil, err
	}
	if err := s.check.ChooseSandbox(s.file); err != nil {
		return nil, err
	}
	if err := agentbox.ResolvePrograms(w, s.file); err != nil {
		return nil, err
	}
	if err := s.check.PinConfig(w); err != nil {
		return nil, err
	}
	defer s.check.Pin.Close()
	unregister, err := drain.Register(w.Repo.BurlDir(), w.Repo.Toplevel)
	if err != nil {
		return nil, err
	}
	defer unregister()
	s.sweep(w)
	stopped := false
	for !stopped {
		active, pending := s.tick()
		s.mu.Lock()
		running := len(s.held)
		s.mu.Unlock()
		if (opt.Once || s.draining) && !active && !pending && running == 0 {
			// A job that ended while this pass read the buckets left
			// work it did not see (a task just in QA, to review or land):
			// one more pass.
			select {
			case <-s.done:
				continue
			default:
			}
			if !s.pulledNow() {
				// Nothing left as of a pull a moment ago: look once
				// more at the remote's latest before leaving.
				continue
			}
			break
		}
		if active && running == 0 {
			continue
		}
		select {
		case <-s.done:
		case <-time.After(opt.Interval):
		case <-opt.Stop:
			stopped = true
		}
	}
	if stopped {
		s.logf("stopping: no new claims; stopping %d agent(s)", len(s.held))
	}
	close(s.stop)
	s.wg.Wait()
	sum := s.summary(stopped)
	if s.draining && !stopped {
		sum.Drained = true
		s.logf("drained: every run finished; exiting")
	}
	return sum, nil
}

// sweep ends the runs of watchers that are gone (sandbox.Sweep) and says
// what it did.
func (s *supervisor) sweep(w *workflow.Workflow) {
	for _, n := range sandbox.Sweep(w.Repo, "") {
		s.logf("%s", n)
	}
}

func (s *supervisor) logf(format string, args ...any) {
	fmt.Fprintf(s.opt.Stderr, "watch: "+format+"\n", args...)
}

func (s *supervisor) stopping() bool {
	select {
	case <-s.opt.Stop:
		return true
	default:
		return false
	}
}

// tick is one pass: take over expired leases, run the approve queue,
// start runs on free slots. It reports whether it did anything, and
// whether the approve queue still holds work for a later pass.
func (s *supervisor) tick() (active, pending bool) {
	w, err := workflow.Open(s.opt.Dir)
	if err != nil {
		s.logf("%v", err)
		return false, false
	}
	if s.pullDue() && w.AutoPush() {
		if err := w.Mutate("sync", func(int) (string, []string, error) { return "", nil, nil }); err != nil {
			s.logf("cannot pull the workflow branch: %v", err)
		}
	}
	file := s.reload(w)
	if why := s.check.HaltReason(); why != "" {
		s.sayOnce("halt:"+why, "%s", why)
		return false, false
	}
	s.check.SandboxChanged(file)
	active = s.takeOvers(w)
	if file != nil && file.AutoApprove && !s.stopping() && trustcheck.AutoApprove(s.sayOnce, w, file) {
		var did bool
		did, pending = s.approveQueue(w)
		active = active || did
	}
	if w.Config.Landing == "pr" && !s.stopping() {
		active = s.settlePRs(w) || active
	}
	if file != nil {
		active = s.reviews(w, file) || active
	}
	var agentList []agents.Agent
	idle := false // a slot was free: idleReasons may say why
	if claim := s.claiming(w) && s.withinBudget(w); claim && file != nil && trustcheck.Setup(s.sayOnce, w) && trustcheck.Gates(s.sayOnce, w) {
		// The reviewer never claims: it reviews the others' work.
		agentList = file.Workers()
	}
	for _, a := range agentList {
		if !trustcheck.Agent(s.sayOnce, w, a) {
			continue
		}
		if _, err := runcheck.SandboxFor(a); err != nil {
			s.sayOnce("sandbox:"+err.Error(), "agent %s: not claiming for it: %s", a.Name, withFix(err))
			continue
		}
		if !s.canStart(a) {
			continue
		}
		// The slots free when the pass began: one freed meanwhile is the
		// next pass's, which starts the queue on what its run submitted.
		s.mu.Lock()
		free := a.MaxParallel - s.busy[a.Name]
		s.mu.Unlock()
		idle = idle || free > 0
		for ; free > 0 && !s.stopping(); free-- {
			id, ok := s.claim(w, a)
			if !ok {
				break
			}
			active = true
			s.start(a, id, func() { s.job(a, id) })
		}
	}
	if !active && idle {
		s.idleReasons(w, agentList)
	}
	return active, pending
}

// idleReasons says, once per task and reason, why a READY task is left
// alone when it would otherwise look like work: no agent's tags match it,
// or it depends on a BLOCKED task (a human must act: what moves it is
// what status says). Without it a watch --once with work left exits 0
// saying "0 run(s)".
func (s *supervisor) idleReasons(w *workflow.Workflow, list []agents.Agent) {
	open, _, err := readyTasks(w)
	if err != nil || len(open) == 0 {
		return
	}
	sums, err := w.Summaries(false, false)
	if err != nil {
		return
	}
	// READY tasks and BLOCKED ones only, whose facts no ref decides.
	set, err := next.Gather(w, next.Inputs{Tasks: sums, Refs: &next.Refs{}})
	if err != nil {
		return
	}
	blocked := map[string][]next.Dep{}
	for i, e := range sums {
		if e.Err == nil && e.Bucket == workflow.Ready {
			blocked[e.ID] = set.Facts(&sums[i]).Blocked
		}
	}
	for _, t := range open {
		if deps := blocked[t.ID()]; len(deps) > 0 {
			var ids, details []string
			for _, d := range deps {
				ids = append(ids, d.ID)
				details = append(details, d.ID+": "+d.Detail())
			}
			s.sayOnce("idle-blocked:"+t.ID()+strings.Join(ids, ","), "%s: not claimed: it depends on %s, which is BLOCKED and waits for a human: %s",
				t.ID(), strings.Join(ids, ", "), strings.Join(details, "; "))
			continue
		}
		matched := false
		for _, a := range list {
			if len(a.Tags) == 0 || tagged(t, a.Tags) {
				matched = true
				break
			}
		}
		if !matched {
			s.sayOnce("idle-tags:"+t.ID(), "%s: not claimed: no agent's tags match its tags [%s]", t.ID(), strings.Join(t.List(task.KeyTags), ", "))
		}
	}
}

// readyTasks reads the READY tasks (the parsable ones) and which of
// their dependencies are DONE.
func readyTasks(w *workflow.Workflow) ([]*task.Task, map[string]bool, error) {
	ready, _, err := w.InBucket(workflow.Ready)
	if err != nil {
		return nil, nil, err
	}
	var open []*task.Task
	for _, e := range ready {
		if e.Task != nil {
			open = append(open, e.Task)
		}
	}
	done, err := w.DoneSet(open...)
	return open, done, err
}

// self is the actor watch records its own transitions as (the queue's
// approves, takeovers): the watcher, not the user who started it, nor one
// of its agents.
func (s *supervisor) self() string { return "watch@" + s.host }

// takeOvers releases every DOING task whose holder is gone: a watcher of
// this host whose process died, or a lease that expired.
func (s *supervisor) takeOvers(w *workflow.Workflow) bool {
	w.Actor = s.self()
	doing, _, err := w.InBucket(workflow.Doing)
	if err != nil {
		return false
	}
	now := time.Now().UTC()
	released := false
	for _, e := range doing {
		s.mu.Lock()
		mine := s.held[e.ID]
		s.mu.Unlock()
		if mine || e.Task == nil {
			continue
		}
		if !lease.Of(e.Task, now, w.Config.LeaseGrace, w.Host).Gone() {
			// Someone else's live work: said once, so that a watch with
			// nothing to do says why instead of nothing at all.
			if h := e.Task.Str(task.KeyLeaseHolder); h != "" {
				until := "its run not started yet"
				if x := e.Task.Str(task.KeyLeaseExpires); x != "" {
					until = "lease until " + x
				}
				s.sayOnce("lease:"+e.ID+h, "%s: held by %s (%s); taken over here if that lease expires", e.ID, lease.Display(h), until)
			}
			continue
		}
		st, took, err := takeOver(w, e.ID)
		if err != nil {
			s.logf("%s: cannot take over from a holder that is gone: %v", e.ID, err)
			continue
		}
		if took {
			s.logf("%s: %s; released it (branch kept)", e.ID, st.Describe())
			released = true
			// A watcher of this host that died (kill -9) left its runs
			// to nobody. Sandboxed, they died with it (their PID
			// namespace, by the parent-death signal); Sweep checks that
			// by the namespace, takes in their commits and puts the
			// worktree back. Unsandboxed daemons are found by their
			// marker, the only thread there is without a namespace.
			if st.State == lease.Dead {
				if n := osx.KillMarkedPrefix(fmt.Sprintf("BURL_RUN_ID=%d.", st.PID)); n > 0 {
					s.logf("%s: stopped %d process(es) left by the dead watcher %s", e.ID, n, lease.Display(st.Holder))
				}
				s.sweep(w)
			}
		}
	}
	return released
}

// claim takes the next task for agent a, as a.Name@host.
func (s *supervisor) claim(w *workflow.Workflow, a agents.Agent) (string, bool) {
	actor := a.Name + "@" + s.host
	if n, err := w.Count(workflow.Ready); err == nil && n == 0 {
		// As of this pass's pull: no claim process to say so.
		return "", false
	}
	if len(a.Tags) == 0 && !s.endingInReady(w) {
		return s.claimOne(a, actor, "")
	}
	open, done, err := readyTasks(w)
	if err != nil {
		return "", false
	}
	unmet := stack.Unmet(w, done)
	var cands []*task.Task
	s.mu.Lock()
	for _, t := range open {
		if !s.held[t.ID()] && (len(a.Tags) == 0 || tagged(t, a.Tags)) && len(unmet(t)) == 0 {
			cands = append(cands, t)
		}
	}
	s.mu.Unlock()
	sort.SliceStable(cands, func(i, j int) bool { return workflow.ClaimOrderLess(cands[i], cands[j]) })
	for _, t := range cands {
		if id, ok := s.claimOne(a, actor, t.ID()); ok {
			return id, true
		}
	}
	return "", false
}

// endingInReady says whether a task this watch still runs is back in
// READY (a stop, a release) while its run ends: such a task is not
// claimed again until that run has kept its work, as two runs of one task
// would race on its branch.
func (s *supervisor) endingInReady(w *workflow.Workflow) bool {
	s.mu.Lock()
	var ids []string
	for id := range s.held {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		found, err := w.Locate(id)
		if err != nil {
			return true
		}
		for _, e := range found {
			if e.Bucket == workflow.Ready {
				return true
			}
		}
	}
	return false
}

func tagged(t *task.Task, want []string) bool {
	return slices.ContainsFunc(t.List(task.KeyTags), func(have string) bool { return slices.Contains(want, have) })
}

func (s *supervisor) claimOne(a agents.Agent, actor, id string) (string, bool) {
	args := []string{"claim", "--json"}
	if id != "" {
		args = append(args, id)
	}
	out, _, code := s.verbEnv(actor, startEnv(a), args...)
	if code != 0 {
		return "", false
	}
	var res struct {
		Task struct {
			ID string `json:"id"`
		} `json:"task"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Task.ID == "" {
		s.logf("cannot read claim's output: %v", err)
		return "", false
	}
	s.logf("%s: claimed by %s", res.Task.ID, actor)
	faults.StopPoint("watch", "claim")
	return res.Task.ID, true
}

// start runs job, agent a's work on task id (a run, or a review), on one
// of a's slots.
func (s *supervisor) start(a agents.Agent, id string, job func()) {
	s.mu.Lock()
	s.busy[a.Name]++
	s.held[id] = true
	s.touch[id] = true
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		job()
		s.mu.Lock()
		s.busy[a.Name]--
		delete(s.held, id)
		s.mu.Unlock()
		s.wake()
	}()
}

// wake tells the loop that a job or the queue finished.
func (s *supervisor) wake() {
	// A wake-up only: one pending is enough, and a full buffer must never
	// block a finished job (Watch waits for all of them).
	select {
	case s.done <- struct{}{}:
	default:
	}
}

// verb runs `git burl <args>` as actor and returns its stdout, stderr and
// exit code. The verb binary beside this one is preferred, so a watch runs
// the verbs of its own installation.
func (s *supervisor) verb(actor string, args ...string) (stdout, stderr []byte, code int) {
	return s.verbEnv(actor, nil, args...)
}

// verbEnv is verb with env added to the verb's environment.
func (s *supervisor) verbEnv(actor string, env []string, args ...string) (stdout, stderr []byte, code int) {
	if why := s.check.HaltReason(); why != "" {
		// Every verb reads the trust store, and may run what it trusts.
		return nil, []byte("watch runs nothing: " + why), 1
	}
	cmd := verbCommand(args)
	cmd.Dir = s.opt.Dir
	cmd.Env = append(append(os.Environ(), "BURL_ACTOR="+actor, "BURL_WATCHER="+lease.Holder(actor)), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if err != nil {
		code = 1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			e.WriteString(err.Error())
		}
	}
	// A lock a dead process left and the verb cleared is said whatever the
	// verb's outcome: the lead reads it in watch's output, not the verb's.
	for _, l := range strings.Split(e.String(), "\n") {
		if c, ok := strings.CutPrefix(l, workflow.ClearedPrefix); ok {
			s.logf("%s%s", workflow.ClearedPrefix[len("burl: "):], c)
		}
	}
	return o.Bytes(), e.Bytes(), code
}

func verbCommand(args []string) *exec.Cmd {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "git-burl-"+args[0])
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return exec.Command(p, args[1:]...)
		}
	}
	return exec.Command(gitx.Program(), append([]string{"burl"}, args...)...)
}

func firstLine(b []byte) string {
	l, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return l
}

// summary reads where every task this watcher touched ended.
func (s *supervisor) summary(stopped bool) *Summary {
	sum := &Summary{Done: []string{}, Blocked: []string{}, Rejected: []string{}, Runs: s.runs, Stopped: stopped}
	if sum.Runs == nil {
		sum.Runs = []Run{}
	}
	w, err := workflow.Open(s.opt.Dir)
	var ids []string
	for id := range s.touch {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		var b workflow.Bucket
		if err == nil {
			if e, gerr := w.Get(id); gerr == nil {
				b = e.Bucket
			}
		}
		switch {
		case b == workflow.Done:
			sum.Done = append(sum.Done, id)
		case b == workflow.Blocked:
			sum.Blocked = append(sum.Blocked, id)
		case s.reject[id] && b == workflow.Ready:
			sum.Rejected = append(sum.Rejected, id)
		}
	}
	sum.Halted = s.check.HaltReason()
	if err != nil {
		w = nil
	}
	sum.CannotStart = s.cannotStart(w)
	sum.OK = len(sum.Blocked) == 0 && len(sum.Rejected) == 0 && !stopped && sum.Halted == "" && !stranded(sum.CannotStart)
	return sum
}
