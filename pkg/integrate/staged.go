package integrate

import (
	"time"

	"github.com/burl-dev/burl/pkg/osx"
)

// A task branch is moved by burl outside its task's lock, before any event
// names where to: approve --all rebases and squashes each QA task it
// stages under main's lock alone, and a parent's landing restacks its
// children. Watch's ref check after a run without a sandbox must tell
// those moves from the run's (DESIGN §24: provenance, not names), so the
// mover records the move in the task's intent before it makes it — the
// record approve writes before it moves main, one file per task: first
// Submitted, the head the branch is at, with no Merged (the move is under
// way); once moved, the heads it went through (Rebased) and to (Merged).
// The event of the transition that follows names the head from then on,
// and the record is dropped.

// Staging reports whether in records a branch move still under way: its
// heads are not known yet.
func (in *Intent) Staging() bool { return in != nil && in.Submitted != "" && in.Merged == "" }

// Moves reports whether a task branch going from old to new is a move in
// records: from the submitted head through the rebased one to the merged
// one (a step of it or the whole), or back to the submitted head, where
// the queue puts a task that does not land. Nothing else: a record
// explains the heads it names, never another commit.
func (in *Intent) Moves(old, new string) bool {
	if in == nil || in.Staging() || in.Submitted == "" || old == "" || new == "" || old == new {
		return false
	}
	rank := func(h string) int {
		for i, v := range []string{in.Submitted, in.Rebased, in.Merged} {
			if v != "" && v == h {
				return i
			}
		}
		return -1
	}
	o, n := rank(old), rank(new)
	return o >= 0 && n >= 0 && (o < n || n == 0)
}

// AwaitStaged is task id's record once no move is under way in it: a
// record still staging, written by a live process of this host, is read
// again until its heads are in, it is dropped, or wait has passed (what
// it then returns is still staging). staged reports whether a staging
// record was seen at all.
func AwaitStaged(commonDir, id, host string, wait time.Duration) (in *Intent, staged bool) {
	deadline := time.Now().Add(wait)
	for {
		in = ReadIntent(commonDir, id)
		if !in.Staging() {
			return in, staged
		}
		staged = true
		if in.Host != host || !osx.ProcessAlive(in.PID) || time.Now().After(deadline) {
			return in, staged
		}
		time.Sleep(20 * time.Millisecond)
	}
}
