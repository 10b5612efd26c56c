package watch

import (
	"time"

	"github.com/burl-dev/burl/pkg/drain"
	"github.com/burl-dev/burl/pkg/workflow"
)

// claiming reports whether this round may claim: not once git burl drain
// asked every watch of the repository to finish (DESIGN §27). Draining
// sticks: the watch finishes its runs, lands what they submitted and
// exits, whoever takes the request away meanwhile.
func (s *supervisor) claiming(w *workflow.Workflow) bool {
	if !s.draining {
		if m, ok := drain.Requested(w.Repo.BurlDir()); ok {
			s.draining = true
			s.mu.Lock()
			n := len(s.held)
			s.mu.Unlock()
			s.logf("draining (asked by %s at %s): claiming nothing new; %d run(s) to finish, then exiting", m.By, m.At.Format(time.RFC3339), n)
		}
	}
	return !s.draining
}
