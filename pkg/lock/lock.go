// Package lock implements PRD 10.2: lock files created with create_new
// semantics (O_EXCL), holding who took them and why. A lock whose holder
// is provably dead (this host: its pid gone or reused, or a reboot since)
// is taken over by the next command that needs it (TakeOverDead); a stale
// or garbled one, or one of another host, is only reported.
package lock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/osx"
)

// Well-known lock names besides task IDs.
const (
	Workflow = "workflow"
	Claim    = "claim"
	// Main serialises approvals, which advance the main branch.
	Main = "main"
	// FastForward is held for the few git commands that fast-forward a
	// checked-out main: git updates the index before the branch, and a
	// concurrent claim would otherwise read that moment as uncommitted work.
	FastForward = "fast-forward"
	// Repair serialises doctor's repairs, which take over the locks dead
	// processes left (TakeOver): one at a time.
	Repair = "repair"
)

// Info is a lock file's content.
type Info struct {
	Owner     string    `json:"owner"`
	Host      string    `json:"host"`
	PID       int       `json:"pid"`
	CreatedAt time.Time `json:"created_at"`
	Action    string    `json:"action"`
	// StartTime and BootID identify the process beyond its pid, which the
	// kernel reuses: a lock whose pid now names a younger process, or
	// that was written before the last boot, is dead (Linux; empty where
	// the OS does not say).
	StartTime string `json:"start_time,omitempty"`
	BootID    string `json:"boot_id,omitempty"`
}

// identify fills in who this process is, when the lock is taken for it.
func (i *Info) identify() {
	if i.PID != os.Getpid() || i.StartTime != "" {
		return
	}
	if start, _, ok := osx.ProcessStart(i.PID); ok {
		i.StartTime = start
	}
	i.BootID = osx.BootID()
}

// Lock is a held lock.
type Lock struct {
	Name     string
	Path     string
	released bool
}

// Dir is a directory of lock files.
type Dir struct {
	Path string
	// Rel renders a path for messages (relative to the repo root).
	Rel func(string) string
	// StaleAfter is lock_stale_minutes.
	StaleAfter time.Duration
}

func (d Dir) file(name string) string { return filepath.Join(d.Path, name+".lock") }

func (d Dir) rel(p string) string {
	if d.Rel != nil {
		return d.Rel(p)
	}
	return p
}

// Acquire takes lock name for action, failing at once (exit 4) if another
// process holds it.
//
// The lock appears with its content in one step: written to a file of its
// own, then linked to the lock's name, which fails when the name exists as
// O_EXCL does. Created empty and then written, a lock whose taker was
// killed in between stayed empty, and every command waited for doctor's
// grace minute to tell it from one being written.
func (d Dir) Acquire(name string, me Info) (*Lock, error) {
	p := d.file(name)
	if _, err := os.Lstat(p); err == nil {
		return nil, d.heldError(name, p)
	}
	me.identify()
	body, _ := json.Marshal(me)
	tmp := tempName(p, "new")
	for attempt := 0; ; attempt++ {
		err := os.WriteFile(tmp, append(body, '\n'), 0o644)
		if errors.Is(err, fs.ErrNotExist) && attempt == 0 {
			if err := os.MkdirAll(d.Path, 0o755); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			_ = os.Remove(tmp)
			return nil, fmt.Errorf("writing lock %s: %w", d.rel(p), err)
		}
		break
	}
	err := link(tmp, p)
	_ = os.Remove(tmp)
	switch {
	case err == nil:
		return &Lock{Name: name, Path: p}, nil
	case errors.Is(err, fs.ErrExist):
		return nil, d.heldError(name, p)
	}
	// A filesystem without hard links (FAT, some network mounts): the lock
	// is created empty and then written, as before.
	return d.create(name, p, body)
}

// link is os.Link, which a test replaces with a filesystem's refusal.
var link = os.Link

// create takes lock p with O_EXCL, then writes it.
func (d Dir) create(name, p string, body []byte) (*Lock, error) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, d.heldError(name, p)
	}
	if err != nil {
		return nil, fmt.Errorf("creating lock %s: %w", d.rel(p), err)
	}
	_, werr := f.Write(append(body, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(p)
		return nil, fmt.Errorf("writing lock %s: %w", d.rel(p), werr)
	}
	return &Lock{Name: name, Path: p}, nil
}

// tempName is where this process writes lock p's next content before it
// becomes the lock: beside it, named so that List does not take it for a
// lock and CleanTemps knows whose it is, and apart from any other taker in
// this process (a goroutine taking the same lock).
func tempName(p, why string) string {
	return fmt.Sprintf("%s.%d.%d.%s", p, os.Getpid(), tempSeq.Add(1), why)
}

var tempSeq atomic.Int64

// tempAge is how old a taker's file must be before CleanTemps removes it:
// a taker keeps it for microseconds.
const tempAge = time.Minute

// CleanTemps removes what a process killed while taking a lock left of
// its lock's next content (tempName), once that process is gone and the
// file is older than a taker ever keeps it (a pid seen from another host
// on a shared folder, or reused, is not taken for dead), and returns their
// names.
func (d Dir) CleanTemps() []string {
	ents, err := os.ReadDir(d.Path)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		_, rest, ok := strings.Cut(e.Name(), ".lock.")
		parts := strings.Split(rest, ".")
		if !ok || len(parts) != 3 {
			continue
		}
		pid, err := strconv.Atoi(parts[0])
		if err != nil || pid <= 0 || osx.ProcessAlive(pid) {
			continue
		}
		if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < tempAge {
			continue
		}
		if os.Remove(filepath.Join(d.Path, e.Name())) == nil {
			out = append(out, e.Name())
		}
	}
	return out
}

// maxPoll bounds the pause between two tries of AcquireWait. Whatever of
// it falls after the release is lost to every waiter: under watch, the
// approve queue lands one task after the other and waits for the claims'
// and submits' workflow lock (100 ms held under load) at each, where a
// pause grown to 50 ms lost it 47 ms on average per task.
const maxPoll = 10 * time.Millisecond

// AcquireWait is Acquire retried for up to wait: for the workflow lock,
// whose holders keep it only for the milliseconds of a file move and a
// commit, so that a burst of agents queues instead of failing.
func (d Dir) AcquireWait(name string, me Info, wait time.Duration) (*Lock, error) {
	deadline := time.Now().Add(wait)
	delay := 2 * time.Millisecond
	for {
		l, err := d.Acquire(name, me)
		if err == nil || errs.KindOf(err) != errs.Lock || time.Now().After(deadline) {
			return l, err
		}
		// A holder that has died will never release: waiting out the full
		// time would only delay the error (which says how to clear it).
		// A holder that released and exited between our attempt and our
		// look is dead too, but its lock is gone: only a lock still there,
		// with the same owner, after one more attempt is left by the dead.
		if st, serr := d.Stat(name); serr == nil && st.Dead {
			if l, err = d.Acquire(name, me); err == nil || errs.KindOf(err) != errs.Lock {
				return l, err
			}
			if again, serr := d.Stat(name); serr == nil && again.Dead && again.Info == st.Info {
				return l, err
			}
			continue
		}
		time.Sleep(delay)
		if delay < maxPoll {
			delay = delay * 3 / 2
		}
	}
}

func (d Dir) heldError(name, p string) error {
	what := "task is locked by another process"
	switch name {
	case Workflow:
		what = "the workflow is locked by another burl command"
	case Claim:
		what = "another claim is choosing the next task"
	case FastForward:
		what = "another burl command is fast-forwarding the main branch"
	}
	e := errs.New(errs.Lock, "%s\nLock: %s", what, d.rel(p))
	if st, err := d.Stat(name); err == nil {
		e.Reason = fmt.Sprintf("%s\nLock: %s (%s)", what, d.rel(p), st.Describe())
	}
	return e.WithFix("wait for it to finish; if its process is gone: git burl lock list, then git burl lock clear %s --force", name)
}

// Release removes the lock file.
func (l *Lock) Release() error {
	// Only the first Release removes the file: by the second, the same
	// name may be another process's lock, which must survive.
	if l == nil || l.released {
		return nil
	}
	l.released = true
	if err := os.Remove(l.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Status is a lock seen by list/doctor.
type Status struct {
	Name  string        `json:"name"`
	Path  string        `json:"path"`
	Info  Info          `json:"info"`
	Age   time.Duration `json:"-"`
	AgeS  int64         `json:"age_seconds"`
	Stale bool          `json:"stale"`
	// Dead: the owner process is on this host and no longer running (or
	// its pid now names another process, or it is a zombie).
	Dead bool `json:"dead"`
	// DeadWhy says how Dead was decided, for messages.
	DeadWhy string `json:"dead_reason,omitempty"`
	// Unreadable: the lock file is empty or not our JSON (a crash mid-write).
	Unreadable bool `json:"unreadable"`
	// raw is the file as read, which TakeOver checks is still there.
	raw []byte
}

// Describe is "created 34m ago by worker@HOST (pid 123, claim)".
func (s Status) Describe() string {
	if s.Unreadable {
		return fmt.Sprintf("unreadable lock file, %s old", humanAge(s.Age))
	}
	// PRD 16 writes owner@HOST; an owner that is user@host already (the
	// default actor) is not given its host twice.
	owner := s.Info.Owner
	if !strings.Contains(owner, "@") {
		owner += "@" + s.Info.Host
	}
	d := fmt.Sprintf("created %s ago by %s (pid %d, %s)", humanAge(s.Age), owner, s.Info.PID, s.Info.Action)
	if s.Dead {
		d += "; " + s.DeadWhy
	} else if s.Stale {
		d += "; stale"
	}
	return d
}

func humanAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Stat reads one lock.
func (d Dir) Stat(name string) (Status, error) {
	p := d.file(name)
	st := Status{Name: name, Path: d.rel(p)}
	fi, err := os.Stat(p)
	if err != nil {
		return st, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return st, err
	}
	st.raw = data
	host, _ := os.Hostname()
	if json.Unmarshal(data, &st.Info) != nil || st.Info.CreatedAt.IsZero() {
		st.Unreadable = true
		st.Info.CreatedAt = fi.ModTime()
	}
	st.Age = time.Since(st.Info.CreatedAt)
	st.AgeS = int64(st.Age.Seconds())
	st.Stale = d.StaleAfter > 0 && st.Age > d.StaleAfter
	if !st.Unreadable && st.Info.Host == host && st.Info.PID > 0 {
		st.DeadWhy = deadWhy(st.Info)
		st.Dead = st.DeadWhy != ""
	}
	return st, nil
}

// deadWhy decides whether a lock's owner on this host is gone, and says
// how; "" while it lives.
func deadWhy(in Info) string { return osx.GoneWhy(in.PID, in.StartTime, in.BootID) }

// List reads every lock in the directory, sorted by name.
func (d Dir) List() ([]Status, error) {
	ents, err := os.ReadDir(d.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Status
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".lock")
		if !ok || e.IsDir() {
			continue
		}
		st, err := d.Stat(name)
		if err != nil {
			continue // released while we looked
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Held reports whether lock name exists.
func (d Dir) Held(name string) bool {
	_, err := os.Lstat(d.file(name))
	return err == nil
}

// TakeOver replaces lock name, still as was read it (a dead holder's, or a
// garbled file), with one held for me, in one rename: the lock is never
// free in between, so no other command can take it and run over what the
// dead holder left before the caller has looked at it. It fails (exit 4)
// when the lock is no longer what was read. One process at a time may
// take over a lock (serialize).
func (d Dir) TakeOver(name string, was Status, me Info) (*Lock, error) {
	release, err := d.serialize()
	if err != nil {
		return nil, err
	}
	defer release()
	return d.takeOver(name, was, me)
}

// serialize orders the takers-over of this directory's locks: each reads
// the lock and replaces it as read, and two at once could both find it as
// read and both rename over it.
func (d Dir) serialize() (func(), error) {
	if err := os.MkdirAll(d.Path, 0o755); err != nil {
		return nil, err
	}
	// The folder itself: a file of its own would be one more in it.
	return osx.Exclusive(d.Path)
}

// TakeOverDead takes over lock name for me when its holder is provably
// dead, and returns what the lock held; a nil lock (and no error) when it
// is not: held by a live process, by another host, garbled, or gone.
// ok decides, with the lock as read, whether it may be taken: a dead
// command may have left work half done that must be finished first.
func (d Dir) TakeOverDead(name string, me Info, ok func(Status) bool) (*Lock, Status, error) {
	release, err := d.serialize()
	if err != nil {
		return nil, Status{}, err
	}
	defer release()
	st, err := d.Stat(name)
	if err != nil || !st.Dead || st.Unreadable || (ok != nil && !ok(st)) {
		return nil, st, nil
	}
	l, err := d.takeOver(name, st, me)
	return l, st, err
}

// Raw is the lock file as it was read.
func (s Status) Raw() []byte { return s.raw }

func (d Dir) takeOver(name string, was Status, me Info) (*Lock, error) {
	p := d.file(name)
	if cur, err := os.ReadFile(p); err != nil || was.raw == nil || !bytes.Equal(cur, was.raw) {
		return nil, d.heldError(name, p)
	}
	me.identify()
	body, _ := json.Marshal(me)
	tmp := tempName(p, "takeover")
	if err := os.WriteFile(tmp, append(body, '\n'), 0o644); err != nil {
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("writing lock %s: %w", d.rel(p), err)
	}
	if err := os.Rename(tmp, p); err != nil {
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("taking over lock %s: %w", d.rel(p), err)
	}
	return &Lock{Name: name, Path: p}, nil
}

// Clear removes a lock someone else holds; the caller has checked --force.
func (d Dir) Clear(name string) error {
	p := d.file(name)
	if err := os.Remove(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return errs.New(errs.User, "no lock named %s (%s)", name, d.rel(p)).WithFix("git burl lock list")
		}
		return err
	}
	return nil
}
