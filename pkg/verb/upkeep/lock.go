package upkeep

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/verb"
)

// Lock is `git burl lock`: what cmd/git-burl-lock runs. Only the
// verbs a binary names are linked into it.
func Lock() cli.Command { return &lockCmd{} }

type lockCmd struct {
	cli.JSONFlag
	Force bool `long:"force" description:"Required by clear: burl cannot be sure the lock's owner is gone, you can"`
}

type lockListOut struct {
	Locks []lock.Status `json:"locks"`
}

func (o lockListOut) Human(w io.Writer) {
	if len(o.Locks) == 0 {
		fmt.Fprintln(w, "No locks are held.")
		return
	}
	for _, l := range o.Locks {
		fmt.Fprintf(w, "%s  %s\n", l.Path, l.Describe())
	}
}

type lockClearOut struct {
	Cleared lock.Status `json:"cleared"`
	Commit  string      `json:"commit,omitempty"`
}

func (o lockClearOut) Human(w io.Writer) {
	fmt.Fprintf(w, "Cleared %s (it was %s)\n", o.Cleared.Path, o.Cleared.Describe())
	fmt.Fprintln(w, "next: git burl doctor (finds what the lock's owner left half done)")
}

func (c *lockCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) == 0 {
		// As `git stash` alone is `git stash push`, the harmless subcommand.
		args = []string{"list"}
	}
	switch args[0] {
	case "list":
		if len(args) != 1 {
			return nil, cli.UsageError("lock", "list takes no arguments")
		}
		w, err := verb.Open(ctx)
		if err != nil {
			return nil, err
		}
		locks, err := w.Locks.List()
		if locks == nil {
			locks = []lock.Status{}
		}
		return lockListOut{Locks: locks}, err
	case "clear":
		if len(args) != 2 {
			return nil, cli.UsageError("lock", "clear takes one lock name: a task ID, workflow or claim")
		}
		return c.clear(ctx, args[1])
	}
	return nil, cli.UsageError("lock", fmt.Sprintf("has no subcommand %q", args[0]))
}

// lockName accepts the well-known lock names and task IDs, nothing else,
// so a name can never point outside the locks directory.
func lockName(s string) (name, taskID string, err error) {
	switch s {
	case lock.Workflow, lock.Claim, lock.Main, lock.FastForward:
		return s, "", nil
	}
	id, err := task.NormalizeID(s)
	if err != nil {
		return "", "", errs.New(errs.User, "%q is not a lock name: use a task ID, %s, %s, %s or %s", s, lock.Workflow, lock.Claim, lock.Main, lock.FastForward).
			WithFix("git burl lock list shows the locks held")
	}
	return id, id, nil
}

func (c *lockCmd) clear(ctx *cli.Context, arg string) (cli.Output, error) {
	name, taskID, err := lockName(arg)
	if err != nil {
		return nil, err
	}
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	st, err := w.Locks.Stat(name)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, errs.New(errs.User, "no lock named %s (%s)", name, st.Path).WithFix("git burl lock list")
		}
		return nil, err
	}
	if !c.Force {
		return nil, errs.New(errs.User, "clearing a lock its owner still holds lets two processes change the same state\nLock: %s (%s)", st.Path, st.Describe()).
			WithTitle("Refusing to clear lock %s without --force", name).
			WithFix("make sure its owner is gone, then: git burl lock clear %s --force", name)
	}
	if host, _ := os.Hostname(); !st.Unreadable && st.Info.Host == host && !st.Dead {
		ctx.Warnf("the owner of %s (pid %d) is still running", name, st.Info.PID)
	}
	// The event is logged under the workflow lock, taken before the clear so
	// that a busy workflow leaves the lock in place rather than cleared and
	// unlogged; when the lock to clear is the workflow lock itself, after.
	var wl *lock.Lock
	if name != lock.Workflow {
		if ws, err := w.Locks.Stat(lock.Workflow); err == nil && ws.Dead {
			return nil, errs.New(errs.Lock, "the workflow lock, needed to log the clear, was left behind too\nLock: %s (%s)", ws.Path, ws.Describe()).
				WithTitle("Cannot clear lock %s yet", name).
				WithFix("git burl lock clear %s --force first (or git burl doctor --repair --force, which clears every dead lock)", lock.Workflow)
		}
		if wl, err = w.LockWorkflow("lock_clear"); err != nil {
			return nil, errs.Wrap(err, errs.Lock, "Cannot clear lock "+name)
		}
		defer wl.Release()
	}
	raw, _ := os.ReadFile(filepath.Join(w.Locks.Path, name+".lock"))
	if err := w.Locks.Clear(name); err != nil {
		return nil, err
	}
	if wl == nil {
		if wl, err = w.LockWorkflow("lock_clear"); err != nil {
			return nil, errs.Wrap(err, errs.Lock, "Cleared "+st.Path+" but cannot log it")
		}
		defer wl.Release()
	}
	sha, err := w.Event("lock_clear", taskID, map[string]any{"lock": name, "path": st.Path, "content": formerContent(raw, st)},
		"lock clear "+name)
	if err != nil {
		return nil, err
	}
	return lockClearOut{Cleared: st, Commit: sha}, nil
}

// formerContent is what the lock file held, as its JSON object when it was
// readable and as text otherwise (a crash between create and write).
func formerContent(raw []byte, st lock.Status) any {
	var obj map[string]any
	if !st.Unreadable && json.Unmarshal(raw, &obj) == nil {
		return obj
	}
	return string(raw)
}
