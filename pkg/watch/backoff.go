package watch

import (
	"errors"
	"time"

	"github.com/burl-dev/burl/pkg/attempts"
	"github.com/burl-dev/burl/pkg/workflow"
)

// failedResults are the run_end results that count as a failed round.
var failedResults = map[string]bool{ResultFailed: true, ResultTimeout: true, ResultUnchanged: true, ResultGates: true, ResultTampered: true}

// backoff waits out retry_backoff before run attempt of id, the task
// held under a renewed lease meanwhile. It reports whether the run may
// go ahead: not when watch stops (the task is released) or the task was
// taken from this watcher (a human may take it back while it waits).
func (s *supervisor) backoff(actor, id string, attempt int, h *attempts.Rounds) bool {
	w, err := workflow.Open(s.opt.Dir)
	if err != nil {
		return true
	}
	base := w.Config.RetryBackoff
	d := h.Wait(base, time.Now())
	if d <= 0 {
		return true
	}
	until := time.Now().Add(d)
	s.logf("%s: run %d waits %s (retry_backoff %s, doubled with each of its %d failed round(s))", id, attempt, roughly(d), base, h.Failed)
	w.Actor = actor
	lease := w.Config.LeaseSeconds
	err = retryLocked(func() error {
		return leaseTx(w, id, actor, "lease", lease, map[string]any{"backoff_until": until.UTC().Format(time.RFC3339), "attempt": attempt})
	})
	if errors.Is(err, errLost.Err) {
		s.logf("%s: lost the task while it waited for its next run", id)
		return false
	}
	quit, lost, renewed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var why string // renew says who took it
	go func() {
		defer close(renewed)
		s.renew(id, actor, lease, quit, lost, &why)
	}()
	defer func() {
		close(quit)
		<-renewed
	}()
	select {
	case <-time.After(d):
		return true
	case <-lost:
		return false
	case <-s.stop:
	case <-s.opt.Stop:
	}
	s.releaseStopped(actor, id)
	return false
}

// roughly is d as a person reads it: whole seconds, or milliseconds
// under one.
func roughly(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Second)
}
