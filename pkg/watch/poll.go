package watch

import "time"

// pullEvery is how often watch's rounds pull the workflow branch with
// workflow_auto_push. A round runs every --interval and whenever a job
// ends; each pull is a fetch (and, on the remote, an upload-pack). Every
// claim, submit and landing pulls for itself anyway: the round's pull only
// tells it which work there is, and three clones pulling five times a
// second spent a third of a 2-core machine on it (DESIGN §25).
const pullEvery = time.Second

// poll is when the rounds last pulled, and whether the latest round did.
type poll struct {
	at   time.Time
	this bool
}

// pullDue says whether this round pulls, and notes that it does.
func (s *supervisor) pullDue() bool {
	s.poll.this = s.poll.at.IsZero() || time.Since(s.poll.at) >= pullEvery
	if s.poll.this {
		s.poll.at = time.Now()
	}
	return s.poll.this
}

// pulledNow says whether the latest round pulled; when it did not, the
// next one will (a watch --once leaves on the remote's latest only).
func (s *supervisor) pulledNow() bool {
	if s.poll.this {
		return true
	}
	s.poll.at = time.Time{}
	return false
}
