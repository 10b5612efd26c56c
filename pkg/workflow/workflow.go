// Package workflow is the state machine over the bucket folders and the one
// transaction runner every mutating verb goes through:
// lock → check → write → move → log → commit → unlock, with rollback.
package workflow

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/task"
)

// Workflow is an opened, initialised workflow.
type Workflow struct {
	Repo   *repo.Repo
	Config *config.Config
	Dir    string // <workflow worktree>/.workflow
	Locks  lock.Dir
	Actor  string
	Host   string
	Stderr io.Writer
	// newShard is the DONE month folder this command created ("" when
	// none): its commit checks whether the worktree should go sparse.
	newShard string
	// emitted are the events of the Mutate attempt under way: notified
	// once that attempt's commit stands (see notify.go).
	emitted []events.Event
	// fresh is this process's last view of the remote's workflow branch
	// (a pull, or a push that won), nil when there is none to reuse; and
	// mainFetched when the remote's main last came with a pull. Both are
	// read and written under the workflow lock (see Mutate).
	fresh       *pulled
	mainFetched time.Time
}

// LocksDirName, EventsDirName and LogsDirName live beside the buckets;
// locks/ and logs/ are machine-local (gitignored).
const (
	LocksDirName  = bucket.LocksDirName
	EventsDirName = bucket.EventsDirName
	LogsDirName   = bucket.LogsDirName
	ConfigName    = bucket.ConfigName
)

// Open resolves the repository from dir and loads its workflow.
func Open(dir string) (*Workflow, error) {
	r, err := repo.Resolve(dir)
	if err != nil {
		return nil, err
	}
	return Load(r)
}

// Load opens the workflow of an already resolved repository.
func Load(r *repo.Repo) (*Workflow, error) {
	if !r.Initialized() {
		return nil, errs.New(errs.User, "burl is not initialised in %s (no %s)", r.Root, r.Rel(filepath.Join(r.WorkflowDir(), ConfigName))).
			WithFix("git burl init")
	}
	w := New(r)
	if err := w.checkLinks(); err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(w.Dir, ConfigName)
	c, err := config.Load(cfgPath)
	if err != nil {
		var ce *config.Error
		if errors.As(err, &ce) {
			ce.File = r.Rel(ce.File)
			return nil, errs.New(errs.User, "invalid configuration: %v", ce).
				WithFix("edit %s (see git-burl(1), CONFIGURATION)", r.Rel(cfgPath))
		}
		return nil, err
	}
	for _, warn := range c.Warnings {
		fmt.Fprintf(w.Stderr, "burl: warning: %s\n", strings.Replace(warn, cfgPath, r.Rel(cfgPath), 1))
	}
	w.Config = c
	w.Locks.StaleAfter = time.Duration(c.LockStaleMinutes) * time.Minute
	return w, nil
}

// DuplicateError is one task ID with more than one file (TASK-001-a.md
// and a hand-made TASK-0001-b.md, or a copy an interrupted move left).
type DuplicateError struct {
	ID    string
	Files []string
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("task %s has more than one file: %s", e.ID, strings.Join(e.Files, ", "))
}

// ErrKind: a human must choose the file to keep (exit 1).
func (e *DuplicateError) ErrKind() errs.Kind { return errs.User }

// SymlinkError is a symbolic link where burl keeps workflow state. The
// workflow branch is shared input: a committed link (a bucket, logs/,
// locks/ pointing elsewhere) would make burl move task files, write its
// cache or take locks outside the repository. burl refuses to run on it.
type SymlinkError struct{ Path string }

func (e *SymlinkError) Error() string {
	return e.Path + " is a symbolic link; burl never follows links inside the workflow"
}

// ErrKind: the user (or a collaborator) has to remove it.
func (e *SymlinkError) ErrKind() errs.Kind { return errs.User }

// checkLinks refuses a workflow whose folders or config are symlinks.
// One lstat each: every command pays it.
func (w *Workflow) checkLinks() error {
	paths := []string{w.Repo.Worktree, w.Dir, filepath.Join(w.Dir, ConfigName), w.EventsDir(), w.LogsDir(), w.Locks.Path}
	for _, b := range Buckets {
		paths = append(paths, w.BucketDir(b))
	}
	for _, p := range paths {
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 {
			rel := w.Rel(p)
			return errs.Wrap(&SymlinkError{Path: rel}, errs.User, "").
				WithFix("remove the link from the workflow branch (git -C %s rm %s, then commit) and recreate the real folder; git burl doctor checks the rest", w.Rel(w.Repo.Worktree), strings.TrimPrefix(rel, w.Rel(w.Repo.Worktree)+"/"))
		}
	}
	return nil
}

// New is a workflow over r with default configuration, for init.
func New(r *repo.Repo) *Workflow {
	host, _ := os.Hostname()
	w := &Workflow{Repo: r, Dir: r.WorkflowDir(), Config: config.Default(), Host: host, Stderr: os.Stderr}
	w.Locks = lock.Dir{Path: filepath.Join(w.Dir, LocksDirName), Rel: r.Rel, StaleAfter: 2 * time.Hour}
	w.Actor = os.Getenv("BURL_ACTOR")
	if w.Actor == "" {
		w.Actor = actorName(func() string {
			email, _ := r.Git.Run("config", "user.email")
			return email
		}) + "@" + host
	}
	return w
}

// actorName is who runs burl when BURL_ACTOR is not set: $USER
// ($USERNAME on Windows), else the account name of the process's user (as
// `id -un`), else the local part of git's user.email, else the user ID.
// Containers and CI often leave USER unset; "unknown" would make every
// worker there the same actor.
func actorName(gitEmail func() string) string {
	for _, v := range []string{"USER", "USERNAME"} {
		if u := os.Getenv(v); u != "" {
			return u
		}
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if local, _, ok := strings.Cut(strings.TrimSpace(gitEmail()), "@"); ok && local != "" {
		return local
	}
	return "uid" + strconv.Itoa(os.Getuid())
}

// Clone names this clone of the repository: host and path, as a claim
// records it.
func (w *Workflow) Clone() string { return w.Host + ":" + w.Repo.Root }

// gitWT runs git in the workflow worktree.
func (w *Workflow) gitWT() gitx.Git { return gitx.Git{Dir: w.Repo.Worktree, OwnRepo: true} }

// BucketDir is the folder of bucket b.
func (w *Workflow) BucketDir(b Bucket) string { return filepath.Join(w.Dir, string(b)) }

// EventsDir holds the NDJSON log.
func (w *Workflow) EventsDir() string { return filepath.Join(w.Dir, EventsDirName) }

// LogsDir holds gate output (untracked).
func (w *Workflow) LogsDir() string { return filepath.Join(w.Dir, LogsDirName) }

// RunLog resolves a run log path as an event records it (relative to the
// repository root) to the file to read, and reports whether it may be read
// at all: only a regular file that is under the logs directory once every
// symlink is resolved (DESIGN §16: a pushed event must not make burl read
// ../../home/you/.git-credentials).
func (w *Workflow) RunLog(rel string) (string, bool) {
	if rel == "" || filepath.IsAbs(rel) {
		return "", false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(w.Repo.Root, filepath.FromSlash(rel)))
	if err != nil {
		return "", false
	}
	logs, err := filepath.EvalSymlinks(w.LogsDir())
	if err != nil {
		return "", false
	}
	if r, err := filepath.Rel(logs, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return real, true
}

// Rel renders a path relative to the repository root.
func (w *Workflow) Rel(p string) string { return w.Repo.Rel(p) }

func (w *Workflow) lockInfo(action string) lock.Info {
	return lock.Info{Owner: w.Actor, Host: w.Host, PID: os.Getpid(), CreatedAt: time.Now().UTC(), Action: action}
}

// workflowLockWait is how long a command queues for the workflow lock,
// which is only ever held for a critical section of a few git commands.
const workflowLockWait = 15 * time.Second

// LockTask takes the per-task lock. It fails at once when another verb
// holds it, except behind a claim: an automatic claim that finds the task
// already taken holds its lock only while it looks, and the task's owner,
// submitting a moment later, must not fail for that.
func (w *Workflow) LockTask(id, action string) (*lock.Lock, error) {
	return w.acquire(id, action, func() (*lock.Lock, error) {
		l, err := w.Locks.Acquire(id, w.lockInfo(action))
		if errs.KindOf(err) != errs.Lock || action == "claim" {
			return l, err
		}
		if st, serr := w.Locks.Stat(id); serr == nil && st.Info.Action == "claim" {
			return w.Locks.AcquireWait(id, w.lockInfo(action), workflowLockWait)
		}
		return l, err
	})
}

// wait is AcquireWait of lock name for action, taken over from a dead
// holder (acquire).
func (w *Workflow) wait(name, action string, d time.Duration) (*lock.Lock, error) {
	return w.acquire(name, action, func() (*lock.Lock, error) { return w.Locks.AcquireWait(name, w.lockInfo(action), d) })
}

// LockMain takes the main lock for an approve (single or queue), which
// waits behind another approve for as long as a queue's batch may take.
func (w *Workflow) LockMain() (*lock.Lock, error) {
	return w.wait(lock.Main, "approve", 5*time.Minute)
}

// LockWorkflow takes the workflow lock, queueing briefly behind its holder.
func (w *Workflow) LockWorkflow(action string) (*lock.Lock, error) {
	l, err := w.wait(lock.Workflow, action, workflowLockWait)
	if err == nil {
		// Old months a kill left in the stash of a cone change come back
		// before anything is decided from the folders.
		w.restoreStash()
	}
	return l, err
}

// LockRepair takes the lock that serialises doctor's repairs, queueing
// like the workflow lock.
func (w *Workflow) LockRepair() (*lock.Lock, error) {
	return w.wait(lock.Repair, "repair", workflowLockWait)
}

// TakeOver takes over lock name, left as was by a process that is gone
// (lock.TakeOver), for action. The workflow lock taken over is then held
// as LockWorkflow holds it.
func (w *Workflow) TakeOver(name string, was lock.Status, action string) (*lock.Lock, error) {
	l, err := w.Locks.TakeOver(name, was, w.lockInfo(action))
	if err == nil && name == lock.Workflow {
		w.restoreStash()
	}
	return l, err
}

// LockClaim takes the claim-selection lock, queueing like the workflow lock.
func (w *Workflow) LockClaim() (*lock.Lock, error) {
	return w.wait(lock.Claim, "claim", workflowLockWait)
}

// LockFastForward takes the lock that serialises fast-forwards of a
// checked-out main branch (integrate.Main.Lock).
func (w *Workflow) LockFastForward() (*lock.Lock, error) {
	return w.wait(lock.FastForward, "fast-forward", workflowLockWait)
}

// Locate finds the bucket(s) holding id without parsing anything. Only
// the open buckets are listed when the task is there: a copy of it in
// DONE (a move a crash interrupted, or a merge) keeps its file name, which
// is looked up in each DONE folder instead of listing a history's worth of
// files. A task in no open bucket is searched for in all of DONE.
func (w *Workflow) Locate(id string) ([]Entry, error) {
	found, err := w.locateActive(id)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		fs, err := w.folders(Done)
		if err != nil {
			return nil, err
		}
		return findIn(fs, Done, id), nil
	}
	dirs, err := w.DoneShardDirs()
	if err != nil {
		return nil, err
	}
	dirs = append([]string{w.BucketDir(Done)}, dirs...)
	seen := map[string]bool{}
	for _, e := range found {
		base := filepath.Base(e.Path)
		if seen[base] {
			continue
		}
		seen[base] = true
		for _, d := range dirs {
			p := filepath.Join(d, base)
			if _, err := os.Lstat(p); err == nil {
				found = append(found, Entry{ID: id, Bucket: Done, Path: p})
			}
		}
	}
	return found, nil
}

// Read parses e's file into e.Task (or e.Err).
func (w *Workflow) Read(e *Entry) {
	data, err := osx.ReadFileNoFollow(e.Path)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			err = fmt.Errorf("it is a symbolic link; burl never follows links inside %s (remove it from the workflow branch)", w.Rel(w.Dir))
		}
		e.Err = w.malformed(e.Path, err)
		return
	}
	t, err := task.Parse(data)
	if err == nil {
		err = t.Validate(e.ID)
	}
	if err == nil {
		err = w.checkBranch(t)
	}
	if err != nil {
		e.Err = w.malformed(e.Path, err)
		return
	}
	e.Task = t
}

// checkBranch refuses a task branch that is one of the repository's own:
// approve deletes a task's branch and claim checks it out.
func (w *Workflow) checkBranch(t *task.Task) error {
	b := t.Branch()
	if b == "" || (b != w.Config.MainBranch && b != w.Repo.Branch) {
		return nil
	}
	return &task.ParseError{Line: t.KeyLine(task.KeyBranch), Msg: fmt.Sprintf("branch %q is the repository's %s branch, not a task branch", b, map[bool]string{true: "main", false: "workflow"}[b == w.Config.MainBranch])}
}

func (w *Workflow) malformed(path string, err error) error {
	var pe *task.ParseError
	loc := w.Rel(path)
	if errors.As(err, &pe) && pe.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, pe.Line)
		err = errors.New(pe.Msg)
	}
	return errs.New(errs.User, "malformed task file %s: %v", loc, err).
		WithFix("fix the frontmatter by hand (see burl-task(5)); burl never rewrites a file it cannot parse")
}

// Get finds and parses one task.
func (w *Workflow) Get(id string) (*Entry, error) {
	found, err := w.Locate(id)
	if err != nil {
		return nil, err
	}
	switch len(found) {
	case 0:
		return nil, errs.New(errs.User, "no task %s in %s", id, w.Rel(w.Dir)).WithFix("git burl status lists the tasks")
	case 1:
	default:
		var where []string
		for _, f := range found {
			where = append(where, w.Rel(f.Path))
		}
		return nil, errs.Wrap(&DuplicateError{ID: id, Files: where}, errs.User, "").
			WithFix("git burl doctor shows which file to keep (its --repair --force settles a copy an interrupted move left); otherwise delete the wrong file from the workflow branch (git -C %s rm FILE) and commit", w.Rel(w.Repo.Worktree))
	}
	e := found[0]
	w.Read(&e)
	if e.Err != nil {
		return nil, e.Err
	}
	return &e, nil
}

// Scan lists every task file of every bucket; malformed files come back
// with Err set so callers can report them and go on.
func (w *Workflow) Scan() ([]Entry, error) {
	var out []Entry
	for _, b := range Buckets {
		good, bad, err := w.InBucket(b)
		if err != nil {
			return nil, err
		}
		out = append(append(out, good...), bad...)
	}
	return out, nil
}

// IDs lists the task IDs a new ID must exceed, from file names alone:
// every ID of the open buckets and of a flat DONE/, and those of the DONE
// month shards, newest first, down to the month before the one the
// highest ID so far was created in. A task with a higher ID was created
// later, so it was done in that month or after (the month before allows
// for clocks that disagree); older shards are not read, and a new ID
// costs the same at 100,000 tasks as at 100.
func (w *Workflow) IDs() ([]string, error) {
	var ids []string
	maxN, maxPath := -1, ""
	take := func(dir string, ns []string) {
		for _, n := range ns {
			if id, ok := task.IDFromFileName(n); ok {
				ids = append(ids, id)
				if num, ok := task.IDNumber(id); ok && num > maxN {
					maxN, maxPath = num, filepath.Join(dir, n)
				}
			}
		}
	}
	var top []string
	for _, b := range Buckets {
		ns, err := names(w.BucketDir(b))
		if err != nil {
			return nil, err
		}
		take(w.BucketDir(b), ns)
		if b == Done {
			top = ns
		}
	}
	shards, err := w.doneShards(top)
	if err != nil {
		return nil, err
	}
	boundOf, bound := "", ""
	for i := len(shards) - 1; i >= 0; i-- {
		if boundOf != maxPath {
			boundOf, bound = maxPath, w.monthBefore(maxPath)
		}
		if filepath.Base(shards[i]) < bound {
			break
		}
		ns, err := names(shards[i])
		if err != nil {
			return nil, err
		}
		take(shards[i], ns)
	}
	return ids, nil
}

// monthBefore is the month shard name before the one the task file at p
// was created in; "" (read every shard) when that cannot be told.
func (w *Workflow) monthBefore(p string) string {
	if p == "" {
		return ""
	}
	e := Entry{Path: p}
	if id, ok := task.IDFromFileName(filepath.Base(p)); ok {
		e.ID = id
	}
	w.Read(&e)
	if e.Err != nil {
		return ""
	}
	created, err := time.Parse(time.RFC3339, e.Task.Str(task.KeyCreated))
	if err != nil {
		return ""
	}
	return DoneShard(time.Date(created.Year(), created.Month()-1, 1, 0, 0, 0, 0, time.UTC))
}

// token tells apart two transition commits that are otherwise identical
// (same summary, actor, host and second). It needs to be unpredictable
// between processes, not secret: the runtime's generator, seeded from the
// OS per process, is that, and crypto/rand would put its FIPS module into
// every binary that opens a workflow, the commit hook among them.
func token() string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], rand.Uint64())
	return hex.EncodeToString(b[:6])
}
