package land

// The queue's side of queue_ci: forge (DESIGN §21); the candidates' push,
// checks and deletion are landforge's (candidates.go there).

import (
	"slices"

	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/landforge"
)

// forgeChecks pushes the candidate s (its rebased top) and waits for its
// checks: the result reads as a build's (name "checks"), so the queue's
// bisection and reports take it as one.
func (q *queue) forgeChecks(s *stacked) gate.RunResult {
	r, failed, pushed := landforge.CandidateChecks(q.w, q.ci, s.e.ID, s.a.merged)
	if branch := landforge.QueueBranch(s.e.ID); pushed && !slices.Contains(q.candidates, branch) {
		q.candidates = append(q.candidates, branch)
	}
	s.failedChecks = failed
	return r
}

// removeCandidates deletes the candidate branches the queue pushed, in one
// push.
func (q *queue) removeCandidates() {
	landforge.DeleteCandidates(q.w, q.candidates)
	q.candidates = nil
}
