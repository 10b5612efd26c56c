package watch

import (
	"encoding/json"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/land"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/trustcheck"
	"github.com/burl-dev/burl/pkg/workflow"
)

// asideTries is how often a watch tries again to land a task the queue
// failed on for a reason that is not the work's, before it leaves the
// task to a human or to another clone (until it is submitted again).
const asideTries = 3

// aside is a QA task this watcher leaves alone for now, not rejected
// (DESIGN §25): the queue could not land it for a reason that is not the
// work's (a lock, git, the remote), or only the clone that submitted it
// has its commits. It holds while the task stays at the submitted head sha.
type aside struct {
	sha   string
	until time.Time // zero: until it is submitted again
	tries int
}

// retries: the watch tries it again later (watch --once waits for that).
func (a aside) retries() bool { return !a.until.IsZero() }

// setAside leaves id alone (with why said once) instead of rejecting it.
func (s *supervisor) setAside(e *workflow.Entry, why string, retry bool) aside {
	sha := e.Task.Str(task.KeySubmittedSHA)
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.aside[e.ID]
	if a.sha != sha {
		a = aside{sha: sha}
	}
	a.tries++
	a.until = time.Time{}
	if retry && a.tries < asideTries {
		a.until = time.Now().Add(time.Duration(1<<a.tries) * time.Second)
	}
	s.aside[e.ID] = a
	return a
}

// queueRun is the approve queue's run in the background (approveQueue):
// whether one is under way, and what the last one found, for the next
// pass to report.
type queueRun struct {
	running bool
	did     bool
	pending bool
}

// approveQueue starts the merge queue, `approve --all`, over the QA tasks
// when some wait for it, in the background: a landing (its rebases, its
// race for main with other clones) does not keep the free agent slots
// from their next claims. It reports what the last run did, and pending
// while one is under way.
func (s *supervisor) approveQueue(w *workflow.Workflow) (did, pending bool) {
	s.mu.Lock()
	if s.queue.running {
		s.mu.Unlock()
		return false, true
	}
	did, pending = s.queue.did, s.queue.pending
	s.queue = queueRun{}
	s.mu.Unlock()
	inQA, waiting, retry := s.queueWork(w)
	pending = pending || retry
	if !waiting || s.stopping() || !trustcheck.Queue(s.sayOnce, w, inQA) {
		return did, pending
	}
	s.mu.Lock()
	s.queue.running = true
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		d, p := s.runQueue(inQA)
		s.mu.Lock()
		s.queue = queueRun{did: d, pending: p}
		s.mu.Unlock()
		s.wake()
	}()
	return did, true
}

// queueWork reads the QA tasks and says whether one waits for the queue
// now, and whether one set aside is to be tried again later. A task
// another clone submitted whose commits this clone lacks is set aside
// here, before any approve runs for it: only that clone can land it.
func (s *supervisor) queueWork(w *workflow.Workflow) (inQA []workflow.Entry, waiting, retry bool) {
	inQA, _, err := w.InBucket(workflow.QA)
	if err != nil {
		return nil, false, false
	}
	now := time.Now()
	for i := range inQA {
		e := &inQA[i]
		// A task whose pull request is open waits for the forge, not for
		// the queue (settlePRs asks about it).
		// One the reviewer is at waits for it.
		s.mu.Lock()
		held, ran := s.held[e.ID], s.touch[e.ID]
		a, set := s.aside[e.ID]
		s.mu.Unlock()
		if e.Task == nil || held || e.Task.Str(task.KeyPRNumber) != "" {
			continue
		}
		if set && a.sha == e.Task.Str(task.KeySubmittedSHA) && (!a.retries() || now.Before(a.until)) {
			retry = retry || a.retries()
			continue
		}
		if !ran && w.Config.MergeStrategy != "manual" {
			if why := land.Elsewhere(w, e.Task); why != "" {
				a := s.setAside(e, why, false)
				s.sayOnce("elsewhere:"+e.ID+a.sha, "%s: left in QA: it %s", e.ID, why)
				continue
			}
		}
		waiting = true
	}
	return inQA, waiting, retry
}

// runQueue runs approve --all over the tasks inQA held a moment ago, and
// reads what it did, on a workflow of its own (it runs beside the next
// passes).
func (s *supervisor) runQueue(inQA []workflow.Entry) (did, pending bool) {
	w, err := workflow.Open(s.opt.Dir)
	if err != nil {
		s.logf("%v", err)
		return false, true
	}
	// The heads the queue is to land: a task it sends back that its
	// worker submits again before the queue's answer is read is in QA
	// with another head, which that answer is not about.
	tried := map[string]string{}
	for _, e := range inQA {
		if e.Task != nil {
			tried[e.ID] = e.Task.Str(task.KeySubmittedSHA)
		}
	}
	out, errOut, code := s.verb(s.self(), "approve", "--all", "--json")
	var res struct {
		Approved []string `json:"approved"`
		Rejected []struct {
			ID     string `json:"id"`
			Reason string `json:"reason"`
			Code   int    `json:"code"`
		} `json:"rejected"`
		Waiting []struct {
			ID        string `json:"id"`
			Reason    string `json:"reason"`
			Elsewhere bool   `json:"elsewhere"`
		} `json:"waiting"`
		Opened []struct {
			ID      string `json:"id"`
			Number  int    `json:"number"`
			URL     string `json:"url"`
			Updated bool   `json:"updated"`
		} `json:"pr_opened"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		if code != int(errs.Lock) {
			s.logf("approve --all: %s", firstLine(errOut))
		}
		// Main or the queue is busy (another approver): a later pass retries.
		return false, true
	}
	s.mu.Lock()
	for _, id := range res.Approved {
		s.touch[id] = true
	}
	for _, r := range res.Rejected {
		s.touch[r.ID] = true
	}
	s.mu.Unlock()
	for _, id := range res.Approved {
		s.logf("%s: approved", id)
		did = true
	}
	for _, p := range res.Opened {
		said := "opened"
		if p.Updated {
			said = "updated"
		}
		s.logf("%s: pull request #%d %s: %s (waits for the forge; settled every %s)", p.ID, p.Number, said, p.URL, settleEvery)
		s.mu.Lock()
		s.touch[p.ID] = true
		s.mu.Unlock()
		did = true
	}
	for _, x := range res.Waiting {
		if !x.Elsewhere {
			continue
		}
		if e, err := w.Get(x.ID); err == nil && e.Bucket == workflow.QA {
			a := s.setAside(e, x.Reason, false)
			s.sayOnce("elsewhere:"+x.ID+a.sha, "%s: left in QA: it %s", x.ID, x.Reason)
		}
	}
	for _, r := range res.Rejected {
		e, err := w.Get(r.ID)
		switch {
		case err != nil || e.Bucket != workflow.QA:
			// The queue sent it back already (conflict, build), to READY
			// or, its QA attempts spent, to BLOCKED: its reason says which.
			s.markRejected(r.ID, "approve: "+r.Reason)
			did = true
		case e.Task != nil && e.Task.Str(task.KeySubmittedSHA) != tried[r.ID]:
			// Submitted again since (the queue sent it back already):
			// the next queue run takes the new head.
			s.logf("%s: the queue's answer (%s) is about an earlier head; its new one waits for the next queue run", r.ID, r.Reason)
			pending = true
		case r.Code == int(errs.Lock) || w.Locks.Held(r.ID):
			// Someone else is at it, or main moved meanwhile.
			pending = true
		case r.Code != int(errs.Validation):
			a := s.setAside(e, r.Reason, true)
			if a.retries() {
				s.logf("%s: not landed, and not rejected (the work is not at fault): %s; tried again in %s", r.ID, r.Reason, roughly(time.Until(a.until)))
				pending = true
			} else {
				s.logf("%s: not landed, and not rejected (the work is not at fault): %s; left in QA (git burl approve %s tries again)", r.ID, r.Reason, r.ID)
			}
		case s.rejectFailed(w, e, r.Reason):
			did = true
		}
	}
	return did, pending
}

// rejectFailed sends a task whose own gates failed in the queue back with
// why: to READY, or to BLOCKED when that spent its last QA attempt.
func (s *supervisor) rejectFailed(w *workflow.Workflow, e *workflow.Entry, why string) bool {
	id := e.ID
	if _, rerr, rc := s.verbRetry(w.Actor, "reject", id, "--reason", "approve failed: "+why); rc != 0 {
		s.logf("%s: cannot reject after a failed approve: %s", id, firstLine(rerr))
		s.setAside(e, why, false)
		return false
	}
	s.markRejected(id, why+"; "+s.endState(w, id))
	return true
}

// endState is where a rejected task is now, as watch says it.
func (s *supervisor) endState(w *workflow.Workflow, id string) string {
	e, err := w.Get(id)
	if err != nil {
		return "its state cannot be read: " + err.Error()
	}
	return qa.Outcome(*e)
}

func (s *supervisor) markRejected(id, why string) {
	s.logf("%s: rejected: %s", id, why)
	s.mu.Lock()
	s.reject[id] = true
	s.mu.Unlock()
}
