// Package doctor finds what crashes, manual edits and lost directories
// leave wrong in a workflow (PRD 10.6), and applies the repairs that are
// safe: those that complete what an interrupted burl command had proven it
// did, and never delete a branch, a worktree or a version of a task that
// is not an identical or older copy. Checking only reads; repairing goes
// through the workflow and task locks and logs a repair event per fix.
package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Kind names a class of finding; the names are stable (JSON output).
type Kind string

// The findings, in the order repairs are applied.
const (
	DeadLock           Kind = "dead_lock"
	StaleLock          Kind = "stale_lock"
	UnreadableLock     Kind = "unreadable_lock"
	StaleGitLock       Kind = "stale_git_lock"
	MissingOnDisk      Kind = "missing_on_disk"
	Symlink            Kind = "symlink"
	DuplicateTask      Kind = "duplicate_task"
	LostTask           Kind = "lost_task"
	LogMismatch        Kind = "log_mismatch"
	BucketMismatch     Kind = "bucket_mismatch"
	InterruptedApprove Kind = "interrupted_approve"
	LandedOutsideBurl  Kind = "landed_outside_burl"
	MissingBaseSHA     Kind = "missing_base_sha"
	MissingBranch      Kind = "missing_branch"
	MissingWorktree    Kind = "missing_worktree"
	WorktreeBranch     Kind = "worktree_branch"
	RebaseInProgress   Kind = "rebase_in_progress"
	PartialWorktree    Kind = "partial_worktree"
	MalformedTask      Kind = "malformed_task"
	OrphanWorktree     Kind = "orphan_worktree"
	OrphanBranch       Kind = "orphan_branch"
	WorkflowBranch     Kind = "workflow_branch"
	TempFile           Kind = "temp_file"
	UnexpectedChange   Kind = "unexpected_change"
	UncommittedChange  Kind = "uncommitted_change"
	UnpushedMain       Kind = "unpushed_main"
	UnpushedWorkflow   Kind = "unpushed_workflow"
	StaleApproveIntent Kind = "stale_approve_intent"
	BadLandingRecord   Kind = "bad_landing_record"
	DoneNotOnRemote    Kind = "done_not_on_remote_main"
	BadLease           Kind = "bad_lease"
	HolderDead         Kind = "holder_dead"
	InterruptedRun     Kind = "interrupted_run"
)

// Finding is one problem: what, where, and the command that repairs it.
type Finding struct {
	Kind       Kind    `json:"kind"`
	Task       *string `json:"task"`
	Path       string  `json:"path"`
	Message    string  `json:"message"`
	Fix        string  `json:"fix"`
	Repairable bool    `json:"repairable"`
	// repair applies the fix of a repairable finding other than a lock's
	// (Repair clears those first, before it can take the workflow lock).
	// It runs under the workflow lock, and under the task lock when Task
	// is set.
	repair func() (*change, error)
	// lockName is the lock a lock finding is about.
	lockName string
	// gitLock is the absolute path of a stale git lock file.
	gitLock string
}

// TaskID is the finding's task, or "".
func (f Finding) TaskID() string {
	if f.Task == nil {
		return ""
	}
	return *f.Task
}

// change is what a repair did, for the repair event and the report.
type change struct {
	action  string
	paths   []string // workflow files to commit
	details map[string]any
	// noEvent: a push, which a repair commit would only put behind again.
	noEvent bool
	// as names the commit for another kind than the finding's: a leftover
	// move into DONE is an approve's, and its commit must read as one (see
	// workflow's strandedApproves).
	as Kind
}

// Report is the result of a check.
type Report struct {
	Findings []Finding `json:"findings"`
	Tasks    int       `json:"tasks"`
	// Elsewhere are DOING and QA tasks claimed in another clone whose
	// branch was never pushed: it lives there, so it is not a problem
	// here.
	Elsewhere []Elsewhere `json:"elsewhere,omitempty"`
}

// Elsewhere is a task whose branch lives in another clone.
type Elsewhere struct {
	Task  string `json:"task"`
	Clone string `json:"clone"`
}

// Healthy reports whether the check found nothing.
func (r *Report) Healthy() bool { return len(r.Findings) == 0 }

const repairCmd = "git burl doctor --repair --force"

// checker holds what one check reads once: git's worktrees and branches,
// the workflow worktree's status, and the task files.
type checker struct {
	w  *workflow.Workflow
	g  gitx.Git
	wg gitx.Git // in the workflow worktree
	// clones is the clone of each task's last claim (claimedIn).
	clones    map[string]string
	worktrees []workspace.Worktree
	branches  map[string]string // local branch -> tip
	status    map[string]string // workflow-worktree-relative path -> porcelain XY
	byID      map[string][]workflow.Entry
	ids       []string
	report    *Report
	// fileTrouble marks tasks whose file itself is wrong (duplicated,
	// misplaced, malformed) and cannot be repaired: their uncommitted
	// changes must not be committed as if they were settled.
	fileTrouble map[string]bool
	// held are the locks a running command holds: what it is in the middle
	// of (an approve between its fast-forward and its DONE) is no finding.
	held map[string]bool
}

// Check inspects the workflow and reports every finding. It only reads.
func Check(w *workflow.Workflow) (*Report, error) {
	c := &checker{w: w, g: w.Repo.Git, report: &Report{Findings: []Finding{}, Elsewhere: []Elsewhere{}}, fileTrouble: map[string]bool{}, held: map[string]bool{}}
	if err := c.load(); err != nil {
		return nil, err
	}
	if err := c.locks(); err != nil {
		return nil, err
	}
	c.gitLocks()
	if err := c.sparseDisk(); err != nil {
		return nil, err
	}
	c.interruptedRuns()
	for _, id := range c.ids {
		c.checkTask(id, c.byID[id])
	}
	if err := c.crossCheck(); err != nil {
		return nil, err
	}
	c.orphans()
	c.workflowBranch()
	c.uncommitted()
	c.unpushed()
	c.doneNotOnRemote()
	if err := c.intents(); err != nil {
		return nil, err
	}
	c.landingRecord()
	return c.report, nil
}

func (c *checker) add(f Finding) { c.report.Findings = append(c.report.Findings, f) }

func strp(s string) *string { return &s }

func (c *checker) load() error {
	var err error
	if c.worktrees, err = workspace.List(c.g); err != nil {
		return err
	}
	out, err := c.g.Run("for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads/")
	if err != nil {
		return err
	}
	c.branches = map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if name, sha, ok := strings.Cut(l, " "); ok {
			c.branches[name] = sha
		}
	}
	c.wg = gitx.In(c.w.Repo.Worktree)
	if c.status, err = porcelain(c.wg); err != nil {
		return err
	}
	entries, err := c.w.Scan()
	if err != nil {
		return err
	}
	c.byID = map[string][]workflow.Entry{}
	for _, e := range entries {
		if e.ID == "" {
			// A stray file in a bucket: no task to group it with.
			c.add(Finding{Kind: MalformedTask, Path: c.w.Rel(e.Path), Message: e.Err.Error(),
				Fix: "rename it to TASK-<n>-<slug>.md, or move it out of the bucket"})
			continue
		}
		if _, seen := c.byID[e.ID]; !seen {
			c.ids = append(c.ids, e.ID)
		}
		c.byID[e.ID] = append(c.byID[e.ID], e)
	}
	sort.Slice(c.ids, func(i, j int) bool {
		a, _ := task.IDNumber(c.ids[i])
		b, _ := task.IDNumber(c.ids[j])
		return a < b
	})
	c.report.Tasks = len(c.ids)
	return nil
}

// porcelain is `git status` of the workflow worktree: path -> XY code.
// --no-optional-locks keeps this read from taking git's index lock, which
// a running transition may need.
func porcelain(g gitx.Git) (map[string]string, error) {
	out, err := g.RunInput(nil, "--no-optional-locks", "status", "--porcelain", "-z", "--untracked-files=all")
	if err != nil {
		return nil, err
	}
	st := map[string]string{}
	recs := strings.Split(string(out), "\x00")
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) < 4 {
			continue
		}
		st[r[3:]] = r[:2]
		if r[0] == 'R' || r[0] == 'C' {
			i++ // the record after a rename is its source path
		}
	}
	return st, nil
}

// wtRel is p relative to the workflow worktree, as git status names it.
func (c *checker) wtRel(p string) string {
	rel, err := filepath.Rel(c.w.Repo.Worktree, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}

// modified reports whether a tracked file has uncommitted changes.
func (c *checker) modified(p string) bool {
	return strings.ContainsRune(c.status[c.wtRel(p)], 'M')
}

// committed reports whether a file is tracked and unchanged since the last
// workflow commit.
func (c *checker) committed(p string) bool {
	_, changed := c.status[c.wtRel(p)]
	return !changed
}

// unreadableGrace is how long a lock file may stay empty: its creator
// writes it right after creating it, so an older empty one was left by a
// process killed in between.
const unreadableGrace = time.Minute

func (c *checker) locks() error {
	locks, err := c.w.Locks.List()
	if err != nil {
		return err
	}
	for _, l := range locks {
		f := Finding{Path: l.Path, lockName: l.Name}
		if _, ok := task.IDNumber(l.Name); ok {
			f.Task = strp(l.Name)
		}
		clearCmd := "git burl lock clear " + l.Name + " --force"
		f.Kind, f.Repairable = lockFinding(l)
		switch {
		case f.Kind == DeadLock:
			f.Message = fmt.Sprintf("lock %s was left by a process that is gone: %s", l.Name, l.Describe())
			f.Fix = repairCmd + " (clears it), or " + clearCmd
		case f.Kind == UnreadableLock:
			f.Message = fmt.Sprintf("lock %s is empty or garbled (%s): its creator was killed while taking it", l.Name, l.Describe())
			f.Fix = repairCmd + " (clears it), or " + clearCmd
		case f.Kind == StaleLock && !f.Repairable:
			f.Message = fmt.Sprintf("lock %s is older than lock_stale_minutes but its owner still runs: %s", l.Name, l.Describe())
			f.Fix = fmt.Sprintf("wait for pid %d, or stop it; if it is stuck: %s", l.Info.PID, clearCmd)
		case f.Kind == StaleLock:
			f.Message = fmt.Sprintf("lock %s is older than lock_stale_minutes (%s)", l.Name, l.Describe())
			f.Fix = repairCmd + " (clears it), or " + clearCmd
		default:
			c.held[l.Name] = true
			continue // held by a running command
		}
		c.add(f)
	}
	return nil
}

// lockFinding is what doctor makes of a lock: dead, garbled or stale, and
// whether repair may clear (or take over) it; "" for a lock a running
// command holds.
func lockFinding(l lock.Status) (Kind, bool) {
	host, _ := os.Hostname()
	switch {
	case l.Dead:
		return DeadLock, true
	case l.Unreadable && l.Age > unreadableGrace:
		return UnreadableLock, true
	case l.Stale && !l.Unreadable && l.Info.Host == host && osx.ProcessAlive(l.Info.PID):
		return StaleLock, false
	case l.Stale:
		return StaleLock, true
	}
	return "", false
}

// checkTask checks the file(s) of one task, then its git side.
func (c *checker) checkTask(id string, es []workflow.Entry) {
	if len(es) > 1 {
		c.duplicate(id, es)
		return
	}
	e := es[0]
	if e.Err != nil {
		c.fileTrouble[id] = true
		c.add(Finding{Kind: MalformedTask, Task: strp(id), Path: c.w.Rel(e.Path), Message: e.Err.Error(),
			Fix: "fix the frontmatter by hand (see burl-task(5)) and commit it: git -C " + c.w.Rel(c.w.Repo.Worktree) + " commit -a"})
		return
	}
	if vs := violations(e.Task, e.Bucket); len(vs) == 1 && vs[0] == task.KeyBaseSHA+" is missing" {
		c.missingBase(e)
	} else if len(vs) > 0 {
		c.mismatch(e, vs)
		return
	}
	if e.Bucket == workflow.Doing || e.Bucket == workflow.QA {
		c.gitSide(e)
	}
}
