package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/attempts"
	"github.com/burl-dev/burl/pkg/brief"
	"github.com/burl-dev/burl/pkg/bwrapbox"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/review"
	"github.com/burl-dev/burl/pkg/runcheck"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/trustcheck"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// The reviewer as a gate (DESIGN §21): each round watch starts the agent
// agents.yaml's review: names on every QA task whose submitted head it has
// not approved; the queue lands only what it approved (land.ReviewGate).
// The reviewer never claims, never holds the task, and writes nothing of
// the repository: it reads a disposable checkout of the head (its own git
// dir, the shared objects as a read-only alternate) and writes its verdict
// to a folder of its own; under bubblewrap the whole repository is
// read-only to it (sandbox.ReadOnly). Its verdict is recorded by
// review.Record, the one transition `review`.

// reviews starts the reviewer on the QA tasks that wait for it, on its
// free slots; it reports whether it started any.
func (s *supervisor) reviews(w *workflow.Workflow, f *agents.File) bool {
	a := f.Reviewer()
	if a == nil || s.stopping() {
		return false
	}
	settings, err := review.Settings(w)
	if err != nil {
		s.sayOnce("review:"+err.Error(), "review: not reviewing: %s", withFix(err))
		return false
	}
	if settings == nil ||
		trustcheck.Refusal(s.sayOnce, w, "review: not reviewing", []trust.Command{trust.Review(w.Dir, settings)}) != "" ||
		trustcheck.Refusal(s.sayOnce, w, "review: agent "+a.Name+": not reviewing with it", trust.Agent(w.Dir, *a)) != "" {
		return false
	}
	if _, err := runcheck.SandboxFor(*a); err != nil {
		s.sayOnce("sandbox:"+err.Error(), "review: agent %s: not reviewing with it: %s", a.Name, withFix(err))
		return false
	}
	inQA, _, err := w.InBucket(workflow.QA)
	if err != nil {
		return false
	}
	started := false
	for _, e := range inQA {
		t := e.Task
		// A task waiting for a human's scope decision, or whose pull
		// request is open, is not the reviewer's to judge now.
		if t == nil || t.ReviewApproved() || t.Str(task.KeyScopeRequest) != "" || t.Str(task.KeyPRNumber) != "" {
			continue
		}
		s.mu.Lock()
		full, mine := s.busy[a.Name] >= a.MaxParallel, s.held[e.ID]
		s.mu.Unlock()
		if full {
			break
		}
		if mine {
			continue
		}
		if !s.haveHead(w, t) {
			// Not the work's failure (DESIGN §25): the clone that
			// submitted it reviews it.
			s.sayOnce("review-elsewhere:"+e.ID+t.Str(task.KeySubmittedSHA), "%s: not reviewed here: its submitted commit is only in the clone that submitted it, which reviews it", e.ID)
			continue
		}
		if h := review.Holder(w, t, lease.Holder(a.Name+"@"+s.host), time.Now()); h != "" {
			s.sayOnce("reviewed:"+e.ID+h, "%s: reviewed by %s (lease until %s); reviewed here if that lease expires", e.ID, lease.Display(h), t.Str(task.KeyLeaseExpires))
			continue
		}
		rev, id, head, rounds := *a, e.ID, t.Str(task.KeySubmittedSHA), settings.Rounds
		s.start(rev, id, func() { s.reviewJob(rev, id, head, rounds) })
		started = true
	}
	return started
}

// reviewJob is one review of id at head, and its record.
func (s *supervisor) reviewJob(a agents.Agent, id, head string, rounds int) {
	w, err := workflow.Open(s.opt.Dir)
	if err != nil {
		s.logf("%s: cannot review: %v", id, err)
		return
	}
	actor := a.Name + "@" + s.host
	w.Actor = actor
	// The review's lease lasts as long as the reviewer may run.
	if other, err := review.Take(w, id, actor, head, a.Timeout+time.Minute, retryLocked); err != nil {
		if other != "" {
			s.sayOnce("reviewed:"+id+other, "%s: reviewed by %s; not reviewed here", id, lease.Display(other))
		} else if !errors.Is(err, review.ErrTaken.Err) {
			s.logf("%s: cannot start its review: %v", id, err)
		}
		return
	}
	r, o := s.review(w, a, actor, id, head, rounds)
	if r.Result == "" {
		return // the task moved on before the review began
	}
	s.mu.Lock()
	s.runs = append(s.runs, r)
	s.mu.Unlock()
	try := ""
	if o != nil && o.Try > 1 {
		try = fmt.Sprintf(" (try %d)", o.Try)
	}
	s.logf("%s: review round %d%s by %s: %s (exit %d, %d ms), log %s", id, r.Attempt, try, a.Name, r.Result, r.Exit, r.DurationMS, r.Log)
	if o == nil {
		return // stopped: the task stays in QA for the next review
	}
	var res *workflow.Result
	err = retryLocked(func() error {
		res, err = review.Record(w, id, *o)
		return err
	})
	if err != nil {
		s.logf("%s: the review is not recorded: %s", id, withFix(err))
		return
	}
	t, bucket := res.Entry.Task, res.Entry.Bucket
	switch {
	case bucket == workflow.Blocked:
		s.logf("%s: BLOCKED: %s (git burl show %s has the whole reason and the fix)", id, t.BlockedSummary(), id)
	case o.Verdict == nil:
		s.logf("%s: the review failed (try %d of %d): %s", id, o.Try, o.Tries, s.said1(brief.FailureLine(o.Failure)))
	case o.Verdict.Verdict == review.RequestChanges:
		s.markRejected(id, fmt.Sprintf("the reviewer %s requested changes: %s; %s", a.Name, oneLine(o.Verdict.Summary, 200), qa.Outcome(res.Entry)))
	default:
		s.logf("%s: approved by the reviewer %s: %s", id, a.Name, oneLine(o.Verdict.Summary, 200))
	}
}

// review runs the reviewer once on id at head. The outcome is nil when
// there is nothing to record: the task moved on, or watch stopped.
func (s *supervisor) review(w *workflow.Workflow, a agents.Agent, actor, id, head string, rounds int) (r Run, out *review.Outcome) {
	e, err := w.Get(id)
	if err != nil || e.Bucket != workflow.QA || e.Task == nil || e.Task.Str(task.KeySubmittedSHA) != head {
		return r, nil
	}
	t := e.Task
	began := time.Now()
	try := attempts.FailedReviews(w, id, head) + 1
	// Numbered by round (the changes requested so far, plus one): each
	// head reviewed is the next round, a failed review's next try is not.
	r = Run{Task: id, Agent: a.Name, Attempt: t.Int(task.KeyReviewRounds) + 1, Exit: -1}
	defer func() { r.DurationMS = time.Since(began).Milliseconds() }()
	o := &review.Outcome{Reviewer: actor, Head: head, Try: try, Tries: a.Retries + 1, Rounds: rounds}
	fail := func(result, why string) (Run, *review.Outcome) {
		r.Result, o.Failure = result, why
		return r, o
	}
	base := filepath.Join(w.LogsDir(), id, fmt.Sprintf("%s-review-%s-%d", began.UTC().Format("20060102T150405.000Z"), a.Name, try))
	logPath, promptPath := base+".log", base+".prompt.md"
	r.Log, o.Log = w.Rel(logPath), w.Rel(logPath)

	// The reviewer's own place: its checkout (src) and the folder its
	// verdict goes to (out), under the runs folder (no other run's box
	// can write there; DESIGN §24), removed after it.
	tmp, err := sandbox.ReviewDir(w.Repo, id)
	if err != nil {
		return fail(ResultFailed, "the review could not be prepared: "+err.Error())
	}
	defer os.RemoveAll(tmp)
	src, outDir := filepath.Join(tmp, "src"), filepath.Join(tmp, "out")
	in := review.Input{Entry: e, Worktree: src, Base: t.BaseSHA(), Head: head,
		DiffFile: filepath.Join(outDir, "diff.patch"), ReviewFile: filepath.Join(outDir, "review.json"),
		Gates: review.LastEntry(t, "Validate PASS"), Round: t.Int(task.KeyReviewRounds) + 1, Rounds: rounds}
	schema := filepath.Join(outDir, "verdict.schema.json")
	if err := review.Prepare(w, t, &in, schema, promptPath); err != nil {
		return fail(ResultFailed, "the review could not be prepared: "+err.Error())
	}
	// Watch keeps this descriptor for the run's output (and, after it,
	// what it reads of the log).
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o644)
	if err != nil {
		return fail(ResultFailed, err.Error())
	}
	defer log.Close()

	prompt := review.Prompt(in)
	if err := fsx.WriteFile(promptPath, []byte(prompt)); err != nil {
		return fail(ResultFailed, err.Error())
	}
	vals := map[string]string{"id": id, "title": t.Title(), "worktree": src, "branch": t.Branch(),
		"task_file": e.Path, "prompt_file": promptPath, "attempt": strconv.Itoa(try), "prompt": prompt,
		"review_file": in.ReviewFile, "review_dir": outDir, "review_schema": schema, "diff_file": in.DiffFile}
	argv := Expand(a.Command, vals)
	env := append(s.check.AgentEnviron(a),
		"BURL_TASK="+id, "BURL_TITLE="+t.Title(), "BURL_WORKTREE="+src, "BURL_BRANCH="+t.Branch(),
		"BURL_TASK_FILE="+e.Path, "BURL_PROMPT_FILE="+promptPath, "BURL_ATTEMPT="+strconv.Itoa(try),
		"BURL_ACTOR="+actor, "BURL_USAGE_FILE="+filepath.Join(outDir, sandbox.UsageName), "BURL_REVIEW_FILE="+in.ReviewFile, "BURL_REVIEW_DIFF="+in.DiffFile, "BURL_REVIEW_SCHEMA="+schema)
	for k, v := range a.Env {
		env = append(env, k+"="+v)
	}

	guard, argv, err := s.check.ConfineReview(w, s.file, a, t, tmp, src, argv)
	if err != nil {
		return fail(ResultFailed, "the review could not be confined: "+err.Error())
	}
	stop := make(chan struct{})
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		select {
		case <-s.stop:
		case <-s.opt.Stop:
		case <-quit:
			return
		}
		close(stop)
	}()
	if guard != nil && !guard.Spec().Unconfined {
		env = bwrapbox.Env(env)
	}
	ran := runAgent(argv, src, env, log, a.Timeout, stop, nil)
	if err := capLog(log, int64(w.Config.LogMaxBytes)); err != nil {
		s.logf("%s: cannot cap the review log %s: %v", id, w.Rel(logPath), err)
	}
	// The Guard covers the task's branch too: a review moves no ref.
	tampered, _ := s.check.Unconfine(w, id, guard, nil)
	r.Exit = ran.exit
	o.Usage = s.reviewUsage(id, outDir, log)
	switch {
	case tampered != "":
		return fail(ResultTampered, tampered)
	case ran.stopped:
		r.Result = ResultStopped
		return r, nil
	case ran.err != nil:
		return fail(ResultFailed, fmt.Sprintf("the reviewer could not be started: %v", ran.err))
	case ran.timedOut:
		return fail(ResultTimeout, fmt.Sprintf("the reviewer timed out after %s and was killed; its last output:\n%s", a.Timeout, tail(log)))
	case ran.exit != 0:
		return fail(ResultFailed, fmt.Sprintf("the reviewer exited with code %d; its last output:\n%s", ran.exit, tail(log)))
	}
	v, err := review.Read(in.ReviewFile, in.Paths)
	if err != nil {
		return fail(ResultFailed, err.Error())
	}
	o.Verdict, r.Result = v, v.Verdict
	return r, o
}

// reviewUsage is what the review reported spending: its usage file (a
// regular file inside its out folder only: the reviewer could have left a
// link there) or its tool's lines in its log, read through watch's own
// descriptor; nil when neither says anything.
func (s *supervisor) reviewUsage(id, out string, log *os.File) *usage.Usage {
	ru := readUsage(out, log)
	if ru.err != nil && !errors.Is(ru.err, usage.ErrNone) {
		s.logf("%s: the reviewer's usage: %v", id, ru.err)
	}
	if ru.u.Zero() {
		return nil
	}
	return &ru.u
}

// fetchAgain is how long a head found only in another clone is not
// looked for again (each look may be a fetch).
const fetchAgain = 5 * time.Second

// haveHead reports whether t's submitted head is in this clone (fetched
// from the remote when it has the branch there): a review of a head
// this clone lacks could only fail, which is not the work's failure.
func (s *supervisor) haveHead(w *workflow.Workflow, t *task.Task) bool {
	key := t.ID() + " " + t.Str(task.KeySubmittedSHA)
	s.mu.Lock()
	at, looked := s.foreign[key]
	s.mu.Unlock()
	if looked && time.Since(at) < fetchAgain {
		return false
	}
	if workspace.HaveCommit(w.Repo.Git, w.Config.Remote, t.Branch(), t.Str(task.KeySubmittedSHA)) {
		return true
	}
	s.mu.Lock()
	s.foreign[key] = time.Now()
	s.mu.Unlock()
	return false
}
