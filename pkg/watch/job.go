package watch

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/attempts"
	"github.com/burl-dev/burl/pkg/brief"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/reason"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/scope"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/workflow"
)

// tailLines is how much of a failed run's output the next prompt carries.
const tailLines = 20

// job runs agent a on the claimed task id until a run is submitted, the
// retries are spent (BLOCKED), or watch stops (released).
func (s *supervisor) job(a agents.Agent, id string) {
	actor := a.Name + "@" + s.host
	failure := ""
	// Runs are numbered across watchers, restarts and rejections; retries
	// count this claim's failures only (a run stopped or taken over failed
	// nothing). Every run after a failed round waits out retry_backoff.
	var h attempts.Rounds
	// started is the run the claim started (FoldRunStart), which nothing
	// stood in front of when the claim checked.
	var started map[string]any
	if w, err := workflow.Open(s.opt.Dir); err == nil {
		h = attempts.Of(w, id, failedResults)
		started = startedRun(w, id, actor)
	}
	first := 1 + h.Runs
	if n, ok := detailInt(started, "attempt"); ok {
		first = n
	} else {
		started = nil
	}
	failures := 0
	for attempt := first; ; attempt++ {
		if started == nil {
			if !s.backoff(actor, id, attempt, &h) {
				return
			}
			cur, why := s.current(a.Name)
			if why != "" {
				if _, e, rc := s.verbRetry(actor, "release", id, "--reason", "watch: "+why); rc != 0 {
					s.logf("%s: cannot release: %s", id, firstLine(e))
				} else {
					s.logf("%s: released: %s", id, why)
				}
				return
			}
			a = cur
			if reason := s.stopReason(a, id); reason != "" {
				if _, e, rc := s.verbRetry(actor, "block", id, "--reason", reason); rc != 0 {
					s.logf("%s: cannot block: %s", id, firstLine(e))
				} else {
					s.logf("%s: BLOCKED: %s (git burl show %s has the whole reason and the fix)", id, s.said1(brief.FailureLine(reason)), id)
				}
				return
			}
		}
		r, fail := s.run(a, actor, id, attempt, failure, &h, started)
		started = nil
		s.mu.Lock()
		s.runs = append(s.runs, r)
		s.mu.Unlock()
		s.logf("%s: run %d of %s: %s (exit %d, %d ms), log %s", id, attempt, a.Name, r.Result, r.Exit, r.DurationMS, r.Log)
		if (r.Result == ResultGates || r.Result == ResultUnchanged) && fail != "" {
			// Why, in one line: the next prompt carries the whole of it.
			s.logf("%s: %s", id, s.said1(brief.FailureLine(fail)))
		}
		switch r.Result {
		case ResultSubmitted, ResultLost:
			return
		case ResultStopped:
			s.releaseStopped(actor, id)
			return
		}
		failure = fail
		h.Fail(time.Now())
		if failures++; failures > a.Retries {
			reason := s.stopReason(a, id)
			if reason == "" {
				s.mu.Lock()
				vs := s.refused[id]
				s.mu.Unlock()
				if r.Result != ResultGates {
					vs = nil
				}
				reason = brief.BlockText(s.opt.Dir, id, a.Name, failures, fail, vs)
			}
			if _, e, rc := s.verbRetry(actor, "block", id, "--reason", reason); rc != 0 {
				s.logf("%s: cannot block: %s", id, firstLine(e))
			} else {
				s.logf("%s: BLOCKED: %s (git burl show %s has the whole reason and the fix)", id, s.said1(brief.FailureLine(reason)), id)
			}
			return
		}
	}
}

// releaseStopped gives id back to READY because watch stops.
func (s *supervisor) releaseStopped(actor, id string) {
	if _, e, rc := s.verbRetry(actor, "release", id, "--reason", "watch stopped"); rc != 0 {
		s.logf("%s: cannot release: %s", id, firstLine(e))
	} else {
		s.logf("%s: released to READY (watch stopped; branch and worktree kept)", id)
	}
}

// run is one run of a on id: run_start (which grants the lease), the
// prompt, the agent under a renewed lease in its sandbox, its work taken
// in, submit, run_end. It returns the run and, when it failed, what the
// next prompt must say.
func (s *supervisor) run(a agents.Agent, actor, id string, attempt int, prev string, h *attempts.Rounds, started map[string]any) (r Run, failure string) {
	r = Run{Task: id, Agent: a.Name, Attempt: attempt, Exit: -1}
	began := time.Now()
	defer func() { r.DurationMS = time.Since(began).Milliseconds() }()
	w, err := workflow.Open(s.opt.Dir)
	if err != nil {
		r.Result = ResultLost
		return r, err.Error()
	}
	w.Actor = actor
	base := runBase(w, id, began, a.Name, attempt)
	leaseSecs := w.Config.LeaseSeconds
	// The holder ties the run to the lease: the board shows it running
	// only while that watcher lives (DESIGN §20).
	details := map[string]any{"agent": a.Name, "attempt": attempt, "log": w.Rel(base + ".log"), "holder": lease.Holder(actor)}
	if a.Preset != "" {
		// The landing record names the tool, not only the entry's name.
		details["preset"] = a.Preset
	}
	if started != nil {
		// The claim started it (FoldRunStart): its run_start is logged.
		details = map[string]any{}
		for k, v := range started {
			if k != "lease_expires" {
				details[k] = v
			}
		}
		log, _ := details["log"].(string)
		base = strings.TrimSuffix(filepath.Join(w.Repo.Root, filepath.FromSlash(log)), ".log")
	} else {
		err = retryLocked(func() error { return leaseTx(w, id, actor, "run_start", leaseSecs, details) })
	}
	logPath, promptPath := base+".log", base+".prompt.md"
	r.Log = w.Rel(logPath)
	if err != nil {
		r.Result = ResultLost
		s.logf("%s: cannot start run: %v", id, err)
		if !errors.Is(err, errLost.Err) {
			// Still ours: give it back rather than leave it in DOING unrun.
			s.verbRetry(actor, "release", id, "--reason", "watch could not start a run: "+oneLine(err.Error(), 300))
		}
		return r, ""
	}
	var used runUsage
	ended := false // run_end went with the submit
	defer func() {
		if !ended {
			s.runEnd(w, a.Name, id, &r, details, began, used)
		}
	}()

	e, err := w.Get(id)
	if err != nil {
		r.Result = ResultLost
		return r, ""
	}
	t := e.Task
	wt := w.WorktreePath(t)
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		r.Result = ResultFailed
		return r, err.Error()
	}
	prompt := brief.Prompt(w, e, attempt, prev)
	if err := fsx.WriteFile(promptPath, []byte(prompt)); err != nil {
		r.Result = ResultFailed
		return r, err.Error()
	}
	// Watch keeps this descriptor: the log is capped and read through it
	// after the run, never again by its path.
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o644)
	if err != nil {
		r.Result = ResultFailed
		return r, err.Error()
	}
	defer log.Close()
	guard, box, err := s.check.Confine(w, s.file, a, t, wt)
	if err != nil {
		r.Result = ResultFailed
		return r, "the run could not be confined: " + err.Error()
	}
	defer func() {
		if err := box.Close(); err != nil {
			s.logf("%s: cannot clean up after the run: %v", id, err)
		}
	}()
	taskFile := e.Path
	vals := map[string]string{"id": id, "title": t.Title(), "worktree": wt, "branch": t.Branch(),
		"task_file": taskFile, "prompt_file": promptPath, "attempt": strconv.Itoa(attempt), "prompt": prompt}
	argv := Expand(a.Command, vals)
	env := append(s.check.AgentEnviron(a),
		"BURL_TASK="+id, "BURL_TITLE="+t.Title(), "BURL_WORKTREE="+wt, "BURL_BRANCH="+t.Branch(),
		"BURL_TASK_FILE="+taskFile, "BURL_PROMPT_FILE="+promptPath, "BURL_ATTEMPT="+strconv.Itoa(attempt),
		"BURL_ACTOR="+actor, "BURL_USAGE_FILE="+box.UsageFile())
	if p := t.Int(task.KeyPort); p != 0 {
		env = append(env, "BURL_PORT="+strconv.Itoa(p))
	}
	for k, v := range a.Env {
		env = append(env, k+"="+v)
	}

	// The lease is renewed every third of lease_seconds while the agent
	// runs, and the task looked at every round; finding it gone (held,
	// cancelled or stopped by a human, taken over) stops the agent.
	lost := make(chan struct{})
	lostWhy := "" // written by renew before it closes lost
	stop := make(chan struct{})
	quitRenew := make(chan struct{})
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		s.renew(id, actor, leaseSecs, quitRenew, lost, &lostWhy)
	}()
	go func() {
		select {
		case <-s.stop:
		case <-s.opt.Stop:
		case <-lost:
		case <-quitRenew:
			return
		}
		close(stop)
	}()
	o := runAgent(argv, wt, env, log, a.Timeout, stop, box)
	if o.left > 0 {
		s.logf("%s: %d process(es) of the run were still there after it ended: killed", id, o.left)
	}
	if err := capLog(log, int64(w.Config.LogMaxBytes)); err != nil {
		s.logf("%s: cannot cap the run log %s: %v", id, w.Rel(logPath), err)
	}
	used = readUsage(box.Out, log)
	if err := box.Restore(); err != nil {
		s.logf("%s: %v", id, err)
	}
	tampered, intact := s.check.Unconfine(w, id, guard, box)
	close(quitRenew)
	<-renewed
	r.Exit = o.exit
	gone := false
	select {
	case <-lost:
		gone = true
	default:
	}
	// Its commits come in whatever its exit (the next run goes on from
	// them), and what it left uncommitted when it succeeded untampered;
	// nothing when the task was lost, or the run replaced a directory on
	// the way to the repository.
	// A task a human took from the run (hold, cancel, stop) has left
	// DOING: nobody else works its branch, and the run's work so far,
	// uncommitted included, is kept on it for whoever goes on.
	keep := gone && tampered == "" && !stillDoing(w, id)
	var received error
	var took sandbox.Received
	if intact && (!gone || keep) {
		succeeded := tampered == "" && !o.stopped && o.err == nil && !o.timedOut && o.exit == 0
		msg := t.Title() + "\n\nBurl-Task: " + t.ID() + "\nBurl-Agent: " + a.Name + "\n"
		if keep {
			msg = "Work so far (the run was stopped: " + oneLine(lostWhy, 200) + ")\n\nBurl-Task: " + t.ID() + "\nBurl-Agent: " + a.Name + "\n"
		}
		took, received = box.Receive(succeeded || keep, msg)
		if !gone {
			s.scopeRequests(w, actor, id, box)
			s.proposals(w, actor, id, box)
		}
	}
	if tampered != "" {
		r.Result = ResultTampered
		return r, tampered
	}
	if gone {
		if keep && received == nil {
			s.logf("%s: the run's work so far is kept on %s", id, t.Branch())
		} else if keep {
			s.logf("%s: the run's work so far could not be kept on %s: %v", id, t.Branch(), received)
		}
		r.Result = ResultLost
		return r, ""
	}
	switch {
	case o.stopped:
		r.Result = ResultStopped
		return r, ""
	case o.err != nil:
		r.Result = ResultFailed
		return r, fmt.Sprintf("the agent could not be started: %v", o.err)
	case received != nil:
		r.Result = ResultGates
		return r, received.Error()
	case o.timedOut:
		r.Result = ResultTimeout
		return r, fmt.Sprintf("the agent timed out after %s and was killed; its last output:\n%s", a.Timeout, tail(log))
	case o.exit != 0:
		r.Result = ResultFailed
		return r, fmt.Sprintf("the agent exited with code %d; its last output:\n%s", o.exit, tail(log))
	}
	// burl's own commit of what the run left, on where the branch was,
	// is new past the base: no walk needed (DESIGN §28).
	left := took.Tip == took.Before && took.Head != took.Before
	if !left && unchanged(w, t) {
		r.Result = ResultUnchanged
		return r, "the agent exited 0 but changed nothing: the branch has no commit past its base"
	}
	if why := h.Repeated(w, t); why != "" {
		r.Result = ResultUnchanged
		return r, why
	}
	r.Result = ResultSubmitted
	d, u, uerr := s.endDetails(&r, details, began, used)
	end := endEnv(a.Name, d, u)
	out, errOut, code := s.verbRetryEnv(actor, end, "submit", "--json", id)
	if ended = code == 0 && end != nil; ended && uerr != nil {
		s.logf("%s: usage not recorded: %v", id, uerr)
	}
	if code != 0 && !s.stillHeld(w, id, actor) {
		// Paused past the lease, the task was taken over (and maybe
		// finished) meanwhile: the run is void, not a gate failure to
		// retry.
		why := reasonLine(errOut)
		if g := whyGone(w, id, actor); g != "" {
			why = g
		}
		s.logf("%s: lost the task: %s", id, why)
		r.Result = ResultLost
		return r, ""
	}
	if code != 0 {
		r.Result = ResultGates
		text, vs := brief.SubmitRefusal(out, errOut)
		s.mu.Lock()
		s.refused[id] = vs
		s.mu.Unlock()
		return r, fmt.Sprintf("submit refused the work (exit %d):\n%s", code, text)
	}
	r.Result = ResultSubmitted
	return r, ""
}

// runUsage is what a run reported spending.
type runUsage struct {
	u   usage.Usage
	err error
}

// unchanged reports whether t's branch has no commit past its base.
func unchanged(w *workflow.Workflow, t *task.Task) bool {
	n, err := gitx.In(w.Repo.Root).Run("rev-list", "--count", t.BaseSHA()+"..refs/heads/"+t.Branch())
	return err == nil && strings.TrimSpace(n) == "0"
}

// readUsage reads what the run reported: its usage file (in its out
// folder, opened as a regular file only) or the agent CLI's lines in its
// log, read through watch's own descriptor.
func readUsage(out string, log *os.File) runUsage {
	var data []byte
	if f, err := osx.OpenInside(out, sandbox.UsageName, false); err == nil {
		data, err = io.ReadAll(io.LimitReader(f, usage.MaxFile+1))
		f.Close()
		if err != nil {
			return runUsage{err: err}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return runUsage{err: fmt.Errorf("$BURL_USAGE_FILE: %w", err)}
	}
	st, err := log.Stat()
	if err != nil {
		return runUsage{err: err}
	}
	u, err := usage.OfRun(data, "$BURL_USAGE_FILE", io.NewSectionReader(log, 0, st.Size()))
	return runUsage{u, err}
}

// scopeRequests records the scope requests a sandboxed run left in its
// out folder (it cannot write the workflow itself): each checked as the
// command line is, and recorded as scope_request, as the agent's.
func (s *supervisor) scopeRequests(w *workflow.Workflow, actor, id string, box *sandbox.Run) {
	reqs, bad := scope.Requests(box.Out)
	for _, b := range bad {
		s.logf("%s: a scope request of the run is not one: %s", id, b)
	}
	for _, q := range reqs {
		if q.ID != id {
			s.logf("%s: the run asked for the scope of %s: not recorded (a run asks for its own task only)", id, q.ID)
			continue
		}
		w.Actor = actor
		err := retryLocked(func() error {
			_, _, err := scope.Apply(w, q, true)
			return err
		})
		if err != nil {
			s.logf("%s: the run's scope request not recorded: %v", id, err)
			continue
		}
		s.logf("%s: the agent asked for wider scope (scope_request): %s", id, oneLine(q.Reason, 200))
	}
}

// endDetails are the details of r's run_end, the usage to add to the
// task's sums (nil when the run reported none), and why the usage the run
// reported was not taken (nil when it was, or it reported none).
func (s *supervisor) endDetails(r *Run, details map[string]any, began time.Time, used runUsage) (map[string]any, *usage.Usage, error) {
	r.DurationMS = time.Since(began).Milliseconds()
	d := map[string]any{"exit": r.Exit, "duration_ms": r.DurationMS, "result": r.Result}
	for k, v := range details {
		d[k] = v
	}
	u, err := used.u, used.err
	switch {
	case err == nil:
		d["usage"] = u
	case !errors.Is(err, usage.ErrNone):
		if !u.Zero() {
			d["usage"] = u
		}
	default:
		err = nil
	}
	if _, ok := d["usage"]; ok {
		return d, &u, err
	}
	return d, nil, err
}

func (s *supervisor) runEnd(w *workflow.Workflow, agent, id string, r *Run, details map[string]any, began time.Time, used runUsage) {
	d, su, err := s.endDetails(r, details, began, used)
	if err != nil {
		s.logf("%s: usage not recorded: %v", id, err)
	}
	if su != nil {
		u := *su
		// The task keeps the sums (status and the budget read them without
		// the event log); wherever the run left it, unless it is DONE.
		err = retryLocked(func() error {
			_, err := w.Run(workflow.Transition{Verb: "run_end", ID: id,
				From:    []workflow.Bucket{workflow.Doing, workflow.QA, workflow.Ready, workflow.Blocked},
				Message: "run_end " + id,
				Apply: func(tx *workflow.Tx) error {
					tx.Task.AddUsage(agent, u)
					for k, v := range d {
						tx.Details[k] = v
					}
					return nil
				}})
			return err
		})
		if err == nil {
			return
		}
		s.logf("%s: usage not added to the task (%v); the run_end event keeps it", id, err)
	}
	err = w.Mutate("run_end", func(int) (string, []string, error) {
		sha, err := w.Event("run_end", id, d, "run_end "+id)
		return sha, nil, err
	})
	if err != nil {
		s.logf("%s: cannot record run_end: %v", id, err)
	}
}

// stopReason is why a's next run on id must not start: the agent asked
// for wider scope, which only a human grants (DESIGN §15), or the task
// spent its budget. "" when it may run.
func (s *supervisor) stopReason(a agents.Agent, id string) string {
	if w, err := workflow.Open(s.opt.Dir); err == nil {
		if e, err := w.Get(id); err == nil {
			if r := e.Task.Str(task.KeyScopeRequest); r != "" {
				return fmt.Sprintf("watch: waits for a human: %s (%s); git burl scope %s --grant grants it, git burl scope %s --deny \"why\" refuses it; either gives the task back to its agent", scope.WaitMarker, r, id, id)
			}
		}
	}
	return s.overBudget(a, id)
}

// overBudget is why a's next run on id must not start: the task's runs
// already spent more than its budget (its own max_cost_usd, else the
// agent's). "" while within budget or with no budget.
func (s *supervisor) overBudget(a agents.Agent, id string) string {
	w, err := workflow.Open(s.opt.Dir)
	if err != nil {
		return ""
	}
	e, err := w.Get(id)
	if err != nil {
		return ""
	}
	return budgetSpent(e.Task, a.MaxCostUSD, a.Name, id)
}

// budgetSpent is overBudget for task t and an agent's budget.
func budgetSpent(t *task.Task, agentMax float64, agent, id string) string {
	limit, whose := t.Budget(agentMax), "agent "+agent
	if t.MaxCostUSD() > 0 {
		whose = "task " + id
	}
	tb := t.Usage()
	spent := tb.Total()
	if limit == 0 || spent.CostUSD <= limit {
		return ""
	}
	return fmt.Sprintf("watch: runs spent %s (%d run(s): %s), %s %s of %s",
		usage.Dollars(spent.CostUSD), spent.Runs, spent.Usage.Short(), task.OverBudgetMarker, usage.Dollars(limit), whose)
}

// renew renews the lease every third of seconds until quit, and looks at
// the task every watch round (DESIGN §25: a hold, cancel or stop ends the
// run within one round); when the task is no longer this watcher's it
// says who took it and why, sets why, and closes lost.
func (s *supervisor) renew(id, actor string, seconds int, quit <-chan struct{}, lost chan<- struct{}, why *string) {
	every := time.Duration(seconds) * time.Second / 3
	look := s.opt.Interval
	if look <= 0 || look > every {
		look = every
	}
	next := time.Now().Add(every)
	t := time.NewTicker(look)
	defer t.Stop()
	gone := func(w *workflow.Workflow, err error) {
		*why = whyGone(w, id, actor)
		if *why == "" {
			*why = fmt.Sprint(err)
		}
		s.logf("%s: lost the task (%s); this watcher runs it no more", id, *why)
		close(lost)
	}
	for {
		select {
		case <-quit:
			return
		case <-t.C:
		}
		w, err := workflow.Open(s.opt.Dir)
		if err != nil {
			continue
		}
		w.Actor = actor
		if e, err := w.Get(id); err == nil && !heldBy(e, actor) {
			gone(w, errLost)
			return
		}
		if time.Now().Before(next) {
			continue
		}
		next = time.Now().Add(every)
		err = leaseTx(w, id, actor, "lease", seconds, nil)
		if errors.Is(err, errLost.Err) || err != nil && !stillDoing(w, id) {
			gone(w, err)
			return
		}
		if err != nil {
			s.logf("%s: cannot renew the lease (retrying): %v", id, err)
		}
	}
}

func stillDoing(w *workflow.Workflow, id string) bool {
	e, err := w.Get(id)
	return err == nil && e.Bucket == workflow.Doing
}

// Expand substitutes {placeholders} inside each argv element. Values are
// inserted as they are: no element is split or passed to a shell.
func Expand(argv []string, vals map[string]string) []string {
	pairs := make([]string, 0, 2*len(vals))
	for k, v := range vals {
		pairs = append(pairs, "{"+k+"}", v)
	}
	r := strings.NewReplacer(pairs...)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}

// tail is the last lines of a run log, read through watch's descriptor.
func tail(f *os.File) string {
	const max = 8 << 10
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := st.Size() - max
	if off < 0 {
		off = 0
	}
	buf := make([]byte, st.Size()-off)
	n, _ := f.ReadAt(buf, off)
	lines := strings.Split(strings.TrimRight(string(buf[:n]), "\n"), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	return strings.Join(lines, "\n")
}

// oneLine is s on one line, cut between words to at most max characters.
func oneLine(s string, max int) string { return reason.Cut(reason.OneLine(s), max) }

// lockRetries bounds the waits for a lock another command holds; under a
// busy queue the workflow lock's own wait can run out.
const lockRetries = 10

func lockPause(i int) { time.Sleep(time.Duration(100*(i+1)+rand.Intn(100)) * time.Millisecond) }

// retryLocked runs f again while it fails on a lock held by someone else.
func retryLocked(f func() error) error {
	var err error
	for i := 0; i < lockRetries; i++ {
		if err = f(); err == nil || errs.KindOf(err) != errs.Lock || errors.Is(err, errLost.Err) {
			return err
		}
		lockPause(i)
	}
	return err
}

// verbRetry is verb, run again while it exits 4 (locked, or a race lost
// to another machine): contention is not the agent's failure.
func (s *supervisor) verbRetry(actor string, args ...string) (stdout, stderr []byte, code int) {
	return s.verbRetryEnv(actor, nil, args...)
}

// verbRetryEnv is verbRetry with env added to the verb's environment.
func (s *supervisor) verbRetryEnv(actor string, env []string, args ...string) (stdout, stderr []byte, code int) {
	for i := 0; ; i++ {
		stdout, stderr, code = s.verbEnv(actor, env, args...)
		if code != int(errs.Lock) || i == lockRetries-1 {
			return stdout, stderr, code
		}
		lockPause(i)
	}
}

// stillHeld reports whether the task is still this watcher's: in DOING,
// assigned to actor, under this process's lease.
func (s *supervisor) stillHeld(w *workflow.Workflow, id, actor string) bool {
	e, err := w.Get(id)
	return err == nil && heldBy(e, actor)
}

// heldBy reports whether e is in DOING, assigned to actor, under this
// process's lease.
func heldBy(e *workflow.Entry, actor string) bool {
	if e.Bucket != workflow.Doing || e.Task == nil {
		return false
	}
	return e.Task.Str(task.KeyAssignedTo) == actor && e.Task.Str(task.KeyLeaseHolder) == lease.Holder(actor)
}

// goneAs is how whyGone tells an event's action.
var goneAs = map[string]string{"hold": "held", "cancel": "cancelled", "stop": "stopped", "release": "released",
	"lease_expired": "taken over", "claim": "claimed", "block": "blocked", "reject": "rejected", "approve": "approved", "submit": "submitted"}

// whyGone says how a task left its watcher: the last event of the task, with
// who did it and why ("held by ann@laptop: I do it myself"); "" when the
// log does not say.
func whyGone(w *workflow.Workflow, id, actor string) string {
	evs, err := events.ForTask(w.EventsDir(), id, time.Now().Add(-24*time.Hour))
	if err != nil || len(evs) == 0 {
		return ""
	}
	// The run's own bookkeeping, and this watcher claiming the task again
	// meanwhile, say nothing of who took it.
	i := len(evs) - 1
	for i > 0 && (evs[i].Actor == actor || evs[i].Action == "lease" || evs[i].Action == "run_start" || evs[i].Action == "run_end") {
		i--
	}
	e := evs[i]
	did, ok := goneAs[e.Action]
	if !ok {
		did = e.Action
	}
	s := did + " by " + e.Actor
	if r, _ := e.Details["reason"].(string); r != "" {
		s += ": " + oneLine(r, 200)
	}
	return s
}

// reasonLine is the Reason line of a verb's error, or its first line.
func reasonLine(stderr []byte) string {
	for _, l := range strings.Split(string(stderr), "\n") {
		if r, ok := strings.CutPrefix(l, "Reason: "); ok {
			return strings.TrimSpace(r)
		}
	}
	return firstLine(stderr)
}
