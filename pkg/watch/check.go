package watch

import (
	"github.com/burl-dev/burl/pkg/runcheck"
)

// checker is the run check of this watch, given what it needs of it.
func (s *supervisor) checker() *runcheck.Checker {
	return &runcheck.Checker{Dir: s.opt.Dir, Logf: s.logf, SayOnce: s.sayOnce, Held: s.heldTasks, Retry: retryLocked}
}

// heldTasks are the tasks this watcher runs now.
func (s *supervisor) heldTasks() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.held))
	for id := range s.held {
		ids = append(ids, id)
	}
	return ids
}
