package workflow

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/task"
)

// acquire takes lock name with take; when a process burl can prove dead
// left it (DESIGN §25), it takes that lock over instead, logs lock_cleared
// and says so in one line. Every verb that needs the lock re-runs or
// finishes what its dead holder left (claim and approve reuse a half-made
// branch, abort a stopped rebase), so the lock alone stood in the way.
// The workflow lock is the exception: its holder may have moved a task
// file and died before the commit, and only doctor's repair finishes that;
// it is taken over only while the workflow worktree is clean.
func (w *Workflow) acquire(name, action string, take func() (*lock.Lock, error)) (*lock.Lock, error) {
	l, err := take()
	if errs.KindOf(err) != errs.Lock {
		return l, err
	}
	dirty := ""
	nl, was, terr := w.Locks.TakeOverDead(name, w.lockInfo(action), func(st lock.Status) bool {
		if name == lock.Workflow {
			dirty = w.leftovers()
		}
		return dirty == ""
	})
	if terr != nil || nl == nil {
		if was.Dead && dirty != "" {
			return nil, errs.Wrap(err, errs.Lock, "").WithFix("git burl doctor --repair --force: the process that held it is gone and left %s uncommitted; the repair finishes or undoes it, then clears the lock", dirty)
		}
		return l, err
	}
	w.logCleared(name, was)
	return nl, nil
}

// leftovers names what a dead holder of the workflow lock left uncommitted
// in the workflow worktree ("" when nothing).
func (w *Workflow) leftovers() string {
	out, err := w.gitWT().Run("status", "--porcelain", "--", ".")
	if err != nil {
		return "the workflow worktree (git status failed: " + err.Error() + ")"
	}
	var paths []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if len(l) > 3 {
			paths = append(paths, strings.TrimSpace(l[3:]))
		}
	}
	if len(paths) == 0 {
		return ""
	}
	if len(paths) > 3 {
		paths = append(paths[:3], fmt.Sprintf("and %d more", len(paths)-3))
	}
	return strings.Join(paths, ", ")
}

// ClearedPrefix starts the line a command prints when it cleared a lock
// (watch repeats the lines of its verbs).
const ClearedPrefix = "burl: cleared lock "

// logCleared says in one line that lock name, as was held it, was taken
// over from its dead holder, and records it as a lock_cleared event. The
// event needs the workflow lock, held already when that is the one taken
// over, and always the last lock a command takes, so taking it here never
// waits on this command's own locks.
func (w *Workflow) logCleared(name string, was lock.Status) {
	fmt.Fprintf(w.Stderr, "%s%s: %s\n", ClearedPrefix, was.Path, was.Describe())
	if name != lock.Workflow {
		wl, err := w.LockWorkflow("lock_cleared")
		if err != nil {
			fmt.Fprintf(w.Stderr, "burl: warning: cannot log the clearing of lock %s: %v\n", was.Path, err)
			return
		}
		defer wl.Release()
	}
	var content any = string(was.Raw())
	var obj map[string]any
	if json.Unmarshal(was.Raw(), &obj) == nil {
		content = obj
	}
	taskID := ""
	if _, ok := task.IDNumber(name); ok {
		taskID = name
	}
	details := map[string]any{"lock": name, "path": was.Path, "content": content, "reason": was.DeadWhy, "age_seconds": int64(was.Age / time.Second)}
	if _, err := w.Event("lock_cleared", taskID, details, "lock_cleared "+name); err != nil {
		fmt.Fprintf(w.Stderr, "burl: warning: cannot log the clearing of lock %s: %v\n", was.Path, err)
	}
}
