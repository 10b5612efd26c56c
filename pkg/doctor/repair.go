package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Repaired is one repair applied.
type Repaired struct {
	Kind   Kind    `json:"kind"`
	Task   *string `json:"task"`
	Path   string  `json:"path"`
	Action string  `json:"action"`
	Commit string  `json:"commit,omitempty"`
}

// Failed is a repair that was tried and did not work.
type Failed struct {
	Finding
	Error string `json:"error"`
}

// Result is what Repair did and what is left.
type Result struct {
	Repaired  []Repaired `json:"repaired"`
	Failed    []Failed   `json:"failed"`
	Remaining *Report    `json:"-"`
}

// rank orders the repairs after the locks: a task's file before its git
// side, and the commit of leftover changes last, once every task file it
// includes is settled.
var rank = map[Kind]int{
	MissingOnDisk: 0, InterruptedRun: 0, TempFile: 1, LostTask: 1, DuplicateTask: 1, BucketMismatch: 2, InterruptedApprove: 3, MissingBaseSHA: 4,
	MissingBranch: 5, MissingWorktree: 5, PartialWorktree: 5, RebaseInProgress: 5,
	UncommittedChange: 9, StaleApproveIntent: 10, BadLandingRecord: 10, UnpushedMain: 11, DoneNotOnRemote: 11, UnpushedWorkflow: 12,
}

func isLock(k Kind) bool {
	return k == DeadLock || k == StaleLock || k == UnreadableLock || k == StaleGitLock
}

// maxRepairs bounds the repair loop; each round fixes one finding.
const maxRepairs = 200

// Repair applies every safe repair (the caller checked --force). One
// repair runs at a time. The workflow lock, when a dead command left it,
// is taken over rather than cleared: freed, it could be taken by another
// command, which would run over what the dead one left (a task moved and
// not committed) before this repair had looked at it. Under the workflow
// lock the other locks left by dead processes are cleared; then it checks
// again and repairs one finding at a time, each under its task's lock and
// logged as a committed repair event, until nothing repairable is left.
func Repair(w *workflow.Workflow) (*Result, error) {
	res := &Result{Repaired: []Repaired{}, Failed: []Failed{}}
	rl, err := takeLock(w, lock.Repair, w.LockRepair)
	if err != nil {
		return nil, err
	}
	defer rl.release()
	wl, err := takeLock(w, lock.Workflow, func() (*lock.Lock, error) { return w.LockWorkflow("repair") })
	if err != nil {
		return nil, err
	}
	defer wl.release()
	faults.CrashPoint("repair", "locks")
	// What a process killed while taking a lock left beside it is no lock.
	w.Locks.CleanTemps()
	var cleared []Repaired
	var contents []map[string]any
	for _, t := range []taken{rl, wl} {
		if t.was != nil {
			cleared = append(cleared, Repaired{Kind: t.kind, Path: t.was.Path, Action: "took over " + t.was.Path})
			contents = append(contents, lockContent(t.was.Name, t.kind, t.raw))
		}
	}
	// A pull killed midway is undone before anything is judged again.
	if err := w.AbortStaleRebase(); err != nil {
		return nil, err
	}
	rep, err := Check(w)
	if err != nil {
		return nil, err
	}
	for _, f := range rep.Findings {
		if !isLock(f.Kind) || !f.Repairable {
			continue
		}
		if f.Kind == StaleGitLock {
			// Not burl's lock: nothing to log but that it is gone.
			if err := os.Remove(f.gitLock); err != nil && !errors.Is(err, fs.ErrNotExist) {
				res.Failed = append(res.Failed, Failed{Finding: f, Error: err.Error()})
				continue
			}
			cleared = append(cleared, Repaired{Kind: f.Kind, Path: f.Path, Action: "removed " + f.Path})
			contents = append(contents, map[string]any{"git_lock": f.Path, "kind": string(f.Kind)})
			continue
		}
		raw, _ := os.ReadFile(filepath.Join(w.Locks.Path, f.lockName+".lock"))
		if err := w.Locks.Clear(f.lockName); err != nil {
			res.Failed = append(res.Failed, Failed{Finding: f, Error: err.Error()})
			continue
		}
		cleared = append(cleared, Repaired{Kind: f.Kind, Task: f.Task, Path: f.Path, Action: "cleared " + f.Path})
		contents = append(contents, lockContent(f.lockName, f.Kind, raw))
	}
	if len(cleared) > 0 {
		sha, err := w.Event("repair", "", map[string]any{"cleared_locks": contents}, fmt.Sprintf("repair: clear %d abandoned lock(s)", len(cleared)))
		if err != nil {
			return nil, err
		}
		for i := range cleared {
			cleared[i].Commit = sha
		}
		res.Repaired = append(res.Repaired, cleared...)
	}
	tried := map[string]bool{}
	for round := 0; round < maxRepairs; round++ {
		rep, err := Check(w)
		if err != nil {
			return nil, err
		}
		f := next(rep, tried)
		if f == nil {
			break
		}
		tried[key(*f)] = true
		r, err := apply(w, *f)
		if err != nil {
			res.Failed = append(res.Failed, Failed{Finding: *f, Error: err.Error()})
			continue
		}
		res.Repaired = append(res.Repaired, *r)
	}
	if res.Remaining, err = Check(w); err != nil {
		return nil, err
	}
	return res, nil
}

// taken is a lock Repair holds; was is set when it took it over from a
// process that left it (kind says how doctor saw it, raw what it held).
type taken struct {
	l    *lock.Lock
	was  *lock.Status
	kind Kind
	raw  []byte
}

func (t taken) release() { _ = t.l.Release() }

// takeLock takes lock name with acquire, or, when a dead process left it
// (as doctor would repair it), takes it over.
func takeLock(w *workflow.Workflow, name string, acquire func() (*lock.Lock, error)) (taken, error) {
	l, err := acquire()
	if err == nil || errs.KindOf(err) != errs.Lock {
		return taken{l: l}, err
	}
	st, serr := w.Locks.Stat(name)
	kind, ok := lockFinding(st)
	if serr != nil || !ok {
		return taken{}, err
	}
	raw, _ := os.ReadFile(filepath.Join(w.Locks.Path, name+".lock"))
	if l, err = w.TakeOver(name, st, "repair"); err != nil {
		return taken{}, err
	}
	return taken{l: l, was: &st, kind: kind, raw: raw}, nil
}

// lockContent is how a cleared lock is recorded in the repair event.
func lockContent(name string, kind Kind, raw []byte) map[string]any {
	var content any = string(raw)
	var obj map[string]any
	if json.Unmarshal(raw, &obj) == nil {
		content = obj
	}
	return map[string]any{"lock": name, "kind": string(kind), "content": content}
}

func key(f Finding) string { return string(f.Kind) + "\x00" + f.TaskID() + "\x00" + f.Path }

// next is the first repairable finding not tried yet, by rank.
func next(rep *Report, tried map[string]bool) *Finding {
	var best *Finding
	for i := range rep.Findings {
		f := &rep.Findings[i]
		if f.repair == nil || tried[key(*f)] {
			continue
		}
		if best == nil || rank[f.Kind] < rank[best.Kind] {
			best = f
		}
	}
	return best
}

// apply runs one repair under its task's lock (so no live command is
// changing that task meanwhile) and commits it with a repair event.
func apply(w *workflow.Workflow, f Finding) (*Repaired, error) {
	id := f.TaskID()
	if id != "" && f.Kind != UncommittedChange {
		tl, err := w.LockTask(id, "repair")
		if err != nil {
			return nil, err
		}
		defer tl.Release()
	}
	ch, err := f.repair()
	if err != nil {
		return nil, err
	}
	if ch.noEvent {
		return &Repaired{Kind: f.Kind, Task: f.Task, Path: f.Path, Action: ch.action}, nil
	}
	details := map[string]any{"kind": string(f.Kind), "path": f.Path, "action": ch.action}
	for k, v := range ch.details {
		details[k] = v
	}
	kind := f.Kind
	if ch.as != "" {
		kind = ch.as
	}
	summary := "repair: " + string(kind)
	if id != "" {
		summary = "repair " + id + ": " + string(kind)
	}
	sha, err := w.Event("repair", id, details, summary, ch.paths...)
	if err != nil {
		return nil, err
	}
	faults.CrashPoint("repair", string(f.Kind))
	return &Repaired{Kind: f.Kind, Task: f.Task, Path: f.Path, Action: ch.action, Commit: sha}, nil
}

// moveFile moves a task file between buckets; a move that had to copy
// across filesystems still moved it.
func moveFile(src, dst string) error {
	// A DONE month shard may not exist yet.
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	err := fsx.Move(src, dst)
	var deg *fsx.Degraded
	if errors.As(err, &deg) {
		return nil
	}
	return err
}

// writeTask replaces a task file atomically.
func writeTask(p string, t *task.Task) error { return fsx.WriteFile(p, t.Bytes()) }
