// Package lease says whether the watcher that holds a DOING task still
// lives (DESIGN §15, §20): on this host by its process (the pid and the
// process's start time, since pids are reused), on another host by its
// lease only. Watch decides takeovers with it; status, show, monitor and
// doctor decide with it whether a run is shown running or lost.
package lease

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
)

// Holder is the lease holder a watcher process writes for actor:
// "actor#pid.start", actor being name@host and start the process's start
// time where the OS tells it ("actor#pid" where it does not). Two
// watchers on one host, or a watcher and the process that later got its
// pid, are told apart.
func Holder(actor string) string { return actor + "#" + self }

// self is this process's part of its holder name, read once.
var self = func() string {
	pid := os.Getpid()
	if start, _, ok := osx.ProcessStart(pid); ok && start != "" {
		return strconv.Itoa(pid) + "." + start
	}
	return strconv.Itoa(pid)
}()

// holder is a holder name taken apart.
type holder struct {
	host  string
	pid   int
	start string // "" when the holder did not record it
}

// parse reads "name@host#pid[.start]"; ok is false for anything else (a
// hand-edited value), which is judged by its lease alone.
func parse(h string) (holder, bool) {
	i := strings.LastIndexByte(h, '#')
	if i < 0 {
		return holder{}, false
	}
	at, id := h[:i], h[i+1:]
	j := strings.LastIndexByte(at, '@')
	if j < 0 {
		return holder{}, false
	}
	host := at[j+1:]
	pid, start, _ := strings.Cut(id, ".")
	n, err := strconv.Atoi(pid)
	if err != nil || n <= 0 {
		return holder{}, false
	}
	return holder{host: host, pid: n, start: start}, true
}

// State is what became of the watcher that holds a task.
type State uint8

const (
	// None: no watcher holds the task (a claim by hand, or no lease yet).
	None State = iota
	// Live: the watcher runs (this host) or its lease holds (another host).
	Live
	// Dead: a watcher of this host whose process is gone.
	Dead
	// Expired: the lease ran out (past lease_grace) or does not parse.
	Expired
)

// Status is a task's holder as judged now.
type Status struct {
	State  State
	Holder string // the lease_holder value
	// PID is a dead local watcher's process id (its orphans are marked
	// with it).
	PID int
	// Why says how Dead or Expired was decided, in a few words.
	Why string
}

// Gone reports a holder nobody will renew: the task is up for takeover.
func (s Status) Gone() bool { return s.State == Dead || s.State == Expired }

// Describe is the holder's fate in one phrase, for messages: "holder
// bot@h#12 is gone (process 12 exited)", "lease of bot@h#12 expired at …".
func (s Status) Describe() string {
	switch s.State {
	case Dead:
		return fmt.Sprintf("holder %s is gone (%s)", Display(s.Holder), s.Why)
	case Expired:
		return s.Why
	}
	return ""
}

// Display is a holder as messages name it, name@host#pid: the start time
// only tells processes apart.
func Display(h string) string {
	if i := strings.LastIndexByte(h, '#'); i >= 0 {
		if j := strings.IndexByte(h[i:], '.'); j >= 0 {
			return h[:i+j]
		}
	}
	return h
}

// Fields are the lease values of a task's frontmatter.
type Fields struct {
	Holder, Expires, StartedAt string
}

// FieldsOf reads t's lease values.
func FieldsOf(t *task.Task) Fields {
	return Fields{Holder: t.Str(task.KeyLeaseHolder), Expires: t.Str(task.KeyLeaseExpires), StartedAt: t.Str(task.KeyStartedAt)}
}

// Check judges a DOING task's holder at now: a watcher of host (this
// machine) by its process, any other by lease_expires plus grace (clock
// skew between machines). A lease granted before started_at belongs to an
// earlier claim and counts as none, so a lease left in the file by an
// earlier watch never makes a later hand claim look abandoned.
func Check(f Fields, now time.Time, grace time.Duration, host string) Status {
	st := Status{Holder: f.Holder}
	if h, ok := parse(f.Holder); ok && host != "" && h.host == host {
		// A watcher gone between its claim and its first lease left a
		// holder (claim records it) and no lease: nobody will renew it.
		if why := deadWhy(h); why != "" {
			st.State, st.PID, st.Why = Dead, h.pid, why
			return st
		}
	}
	if f.Expires == "" {
		if f.Holder != "" {
			st.State = Live
		}
		return st
	}
	exp, err := time.Parse(time.RFC3339, f.Expires)
	if err != nil {
		st.State, st.Why = Expired, fmt.Sprintf("lease_expires %q does not parse, so it counts as expired", f.Expires)
		return st
	}
	if started, err := time.Parse(time.RFC3339, f.StartedAt); err == nil && exp.Before(started) {
		return Status{}
	}
	if now.After(exp.Add(grace)) {
		who := f.Holder
		if who == "" {
			who = "its holder"
		}
		st.State, st.Why = Expired, fmt.Sprintf("lease of %s expired at %s", Display(who), f.Expires)
		return st
	}
	st.State = Live
	return st
}

// Of is Check of a task file.
func Of(t *task.Task, now time.Time, grace time.Duration, host string) Status {
	return Check(FieldsOf(t), now, grace, host)
}

// deadWhy says why the local watcher h is dead, "" while it runs.
func deadWhy(h holder) string {
	if h.pid == os.Getpid() {
		return ""
	}
	start, zombie, known := osx.ProcessStart(h.pid)
	switch {
	case zombie:
		return fmt.Sprintf("process %d exited", h.pid)
	case !osx.ProcessAlive(h.pid):
		return fmt.Sprintf("process %d exited", h.pid)
	case known && h.start != "" && start != h.start:
		return fmt.Sprintf("process %d exited; its pid now belongs to another process", h.pid)
	}
	return ""
}
