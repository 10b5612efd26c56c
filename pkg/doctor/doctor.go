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
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
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
	DoneNotOnRemote    Kind = "done_not_on_remote_main"
	BadLease           Kind = "bad_lease"
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
	host, _ := os.Hostname()
	for _, l := range locks {
		f := Finding{Path: l.Path, lockName: l.Name, Repairable: true}
		if _, ok := task.IDNumber(l.Name); ok {
			f.Task = strp(l.Name)
		}
		clearCmd := "git burl lock clear " + l.Name + " --force"
		switch {
		case l.Dead:
			f.Kind = DeadLock
			f.Message = fmt.Sprintf("lock %s was left by a process that is gone: %s", l.Name, l.Describe())
			f.Fix = repairCmd + " (clears it), or " + clearCmd
		case l.Unreadable && l.Age > unreadableGrace:
			f.Kind = UnreadableLock
			f.Message = fmt.Sprintf("lock %s is empty or garbled (%s): its creator was killed while taking it", l.Name, l.Describe())
			f.Fix = repairCmd + " (clears it), or " + clearCmd
		case l.Stale && !l.Unreadable && l.Info.Host == host && osx.ProcessAlive(l.Info.PID):
			f.Kind = StaleLock
			f.Repairable = false
			f.Message = fmt.Sprintf("lock %s is older than lock_stale_minutes but its owner still runs: %s", l.Name, l.Describe())
			f.Fix = fmt.Sprintf("wait for pid %d, or stop it; if it is stuck: %s", l.Info.PID, clearCmd)
		case l.Stale:
			f.Kind = StaleLock
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

// bucketOf is the bucket of a task file's path: its folder, or DONE for a
// file in a DONE month shard.
func bucketOf(p string) string {
	dir := filepath.Dir(p)
	if workflow.IsDoneShard(filepath.Base(dir)) && filepath.Base(filepath.Dir(dir)) == string(workflow.Done) {
		return string(workflow.Done)
	}
	return filepath.Base(dir)
}

func (c *checker) duplicate(id string, es []workflow.Entry) {
	var where []string
	for _, e := range es {
		where = append(where, c.w.Rel(e.Path))
	}
	f := Finding{Kind: DuplicateTask, Task: strp(id), Path: strings.Join(where, ", ")}
	keep, why := c.survivor(es)
	if keep == nil {
		c.fileTrouble[id] = true
		f.Message = fmt.Sprintf("%s is in %d buckets: %s; %s", id, len(es), f.Path, why)
		f.Fix = fmt.Sprintf("keep the right copy and delete the others by hand (git -C %s rm %sFILE), then git burl doctor", c.w.Rel(c.w.Repo.Worktree), c.sparseOpt())
		c.add(f)
		return
	}
	f.Message = fmt.Sprintf("%s is in %d buckets: %s (%s, as an interrupted copy+delete move leaves it)", id, len(es), f.Path, why)
	f.Fix = fmt.Sprintf("%s keeps %s and deletes the other copy", repairCmd, c.w.Rel(keep.Path))
	f.Repairable = true
	f.repair = func() (*change, error) {
		ch := &change{details: map[string]any{"kept": c.w.Rel(keep.Path)}}
		var removed []string
		for _, e := range es {
			ch.paths = append(ch.paths, e.Path)
			if e.Path == keep.Path {
				continue
			}
			if err := os.Remove(e.Path); err != nil {
				return nil, err
			}
			removed = append(removed, c.w.Rel(e.Path))
		}
		ch.details["removed"] = removed
		// The copy kept is where the task is now, whether or not the
		// killed move got to log it.
		ch.details["moved"] = map[string]any{id: map[string]any{"to": string(keep.Bucket)}}
		ch.action = fmt.Sprintf("kept %s, deleted %s", c.w.Rel(keep.Path), strings.Join(removed, ", "))
		return ch, nil
	}
	c.add(f)
}

// survivor picks the copy of a duplicated task to keep: with identical
// copies, the one in the bucket the frontmatter fits (and git confirms);
// otherwise the only copy newer than the last workflow commit, when every
// other copy is exactly what was committed (clearly older) and the newer
// copy fits its bucket. nil, with the reason, when no copy clearly wins.
func (c *checker) survivor(es []workflow.Entry) (*workflow.Entry, string) {
	first, err := os.ReadFile(es[0].Path)
	if err != nil {
		return nil, err.Error()
	}
	identical := true
	for _, e := range es[1:] {
		data, err := os.ReadFile(e.Path)
		if err != nil {
			return nil, err.Error()
		}
		identical = identical && string(data) == string(first)
	}
	if identical {
		if es[0].Err != nil {
			return nil, "the copies are identical but malformed: " + es[0].Err.Error()
		}
		fit := fits(es[0].Task)
		for i, e := range es {
			if len(fit) == 1 && fit[0] == e.Bucket {
				if why := c.unproven(&e); why != "" {
					return nil, "the copies are identical but " + why
				}
				return &es[i], "identical copies; the frontmatter fits " + string(e.Bucket)
			}
		}
		return nil, "the copies are identical but their frontmatter fits none of their buckets alone"
	}
	var newer []int
	for i, e := range es {
		if !c.committed(e.Path) {
			newer = append(newer, i)
		}
	}
	if len(newer) != 1 {
		return nil, "the copies differ and none is clearly the newest"
	}
	n := &es[newer[0]]
	if n.Err != nil || len(violations(n.Task, n.Bucket)) > 0 {
		return nil, "the copies differ and the newest does not fit its bucket " + bucketOf(n.Path)
	}
	if why := c.unproven(n); why != "" {
		return nil, "the copies differ and " + why
	}
	return n, "the other copies are the committed, older version"
}

// unproven checks git for what a task's frontmatter claims happened before
// the file reached bucket e.Bucket (claim made the branch, submit the
// submitted commit, approve the merge). It returns why not, or "".
func (c *checker) unproven(e *workflow.Entry) string {
	t := e.Task
	switch e.Bucket {
	case workflow.Doing:
		if _, ok := c.branches[t.Branch()]; !ok {
			return "its branch " + t.Branch() + " does not exist"
		}
	case workflow.QA:
		tip, ok := c.branches[t.Branch()]
		if !ok {
			return "its branch " + t.Branch() + " does not exist"
		}
		sub := t.Str(task.KeySubmittedSHA)
		if in, _ := c.g.Test("merge-base", "--is-ancestor", sub, tip); !in {
			return "submitted_sha " + sub + " is not on its branch " + t.Branch()
		}
	case workflow.Done:
		if in, _ := integrate.WorkInMain(c.g, c.w.Config.MainBranch, t.BaseSHA(), t.Str(task.KeySubmittedSHA)); !in {
			return "its commits are not in " + c.w.Config.MainBranch
		}
	}
	return ""
}

// mismatch is a task whose frontmatter breaks its bucket's rules. The
// folder is the truth (PRD 7.2) unless the metadata proves a later step
// completed: every transition writes the metadata after its git work and
// before it moves the file, so a file with uncommitted changes whose
// frontmatter fits exactly one other bucket, one transition away, with git
// confirming that transition's work, was left by a command killed between
// write and move. Only then does repair finish the move; any other
// mismatch (a committed one was made by hand) is reported.
func (c *checker) mismatch(e workflow.Entry, vs []string) {
	id := e.ID
	f := Finding{Kind: BucketMismatch, Task: strp(id), Path: c.w.Rel(e.Path)}
	broken := fmt.Sprintf("%s is in %s but its frontmatter breaks %s's rules (%s)", id, e.Bucket, e.Bucket, strings.Join(vs, ", "))
	manual := fmt.Sprintf("the folder wins: make the frontmatter of %s fit %s (see burl-task(5)), or move the file to the bucket it fits with git -C %s mv%s, and commit",
		f.Path, e.Bucket, c.w.Rel(c.w.Repo.Worktree), strings.TrimSuffix(" "+c.sparseOpt(), " "))
	fit := fits(e.Task)
	if len(fit) != 1 {
		c.fileTrouble[id] = true
		f.Message, f.Fix = broken, manual
		c.add(f)
		return
	}
	to := fit[0]
	verb, legal := transitions[[2]workflow.Bucket{e.Bucket, to}]
	target := e
	target.Bucket = to
	var why string
	switch {
	case !legal:
		why = fmt.Sprintf("no burl command moves a task from %s to %s", e.Bucket, to)
	case !c.w.Config.WorkflowAutoCommit:
		why = "with workflow_auto_commit off, doctor cannot tell an interrupted command from a hand edit"
	case !c.modified(e.Path):
		why = "the file is committed like this, so it was not left by an interrupted command"
	default:
		why = c.unproven(&target)
	}
	if why != "" {
		c.fileTrouble[id] = true
		f.Message = fmt.Sprintf("%s; it fits %s, but %s", broken, to, why)
		f.Fix = manual
		c.add(f)
		return
	}
	dst := c.w.DestPath(to, e.Task, filepath.Base(e.Path))
	f.Message = fmt.Sprintf("%s is in %s but its frontmatter says %s: an interrupted %s wrote it and was killed before moving the file", id, e.Bucket, to, verb)
	f.Fix = fmt.Sprintf("%s moves it to %s", repairCmd, c.w.Rel(dst))
	f.Repairable = true
	f.repair = func() (*change, error) {
		if err := moveFile(e.Path, dst); err != nil {
			return nil, err
		}
		return &change{action: fmt.Sprintf("moved %s %s → %s (finishing an interrupted %s)", id, e.Bucket, to, verb),
			paths: []string{e.Path, dst}, details: map[string]any{"from": string(e.Bucket), "to": string(to), "interrupted": verb}}, nil
	}
	c.add(f)
}

func (c *checker) missingBase(e workflow.Entry) {
	t := e.Task
	f := Finding{Kind: MissingBaseSHA, Task: strp(e.ID), Path: c.w.Rel(e.Path)}
	f.Message = fmt.Sprintf("%s is in %s without base_sha: submit and validate diff against it", e.ID, e.Bucket)
	if _, ok := c.branches[t.Branch()]; !ok {
		f.Fix = fmt.Sprintf("set base_sha in %s to the commit %s was branched from, and commit", f.Path, t.Branch())
		c.add(f)
		return
	}
	main := c.w.Config.MainBranch
	f.Fix = fmt.Sprintf("%s sets it to where %s forked from %s (git merge-base %s %s)", repairCmd, t.Branch(), main, t.Branch(), main)
	f.Repairable = true
	f.repair = func() (*change, error) {
		base, err := c.g.Run("merge-base", t.Branch(), main)
		if err != nil {
			return nil, err
		}
		t.SetStr(task.KeyBaseSHA, base)
		if err := writeTask(e.Path, t); err != nil {
			return nil, err
		}
		return &change{action: fmt.Sprintf("set base_sha of %s to %s", e.ID, gitx.Short(base)), paths: []string{e.Path},
			details: map[string]any{"base_sha": base}}, nil
	}
	c.add(f)
}

// gitSide checks a DOING or QA task's branch and worktree.
func (c *checker) gitSide(e workflow.Entry) {
	t := e.Task
	id, b := e.ID, t.Branch()
	if raw := t.Str(task.KeyLeaseExpires); e.Bucket == workflow.Doing && raw != "" {
		if _, err := time.Parse(time.RFC3339, raw); err != nil {
			c.add(Finding{Kind: BadLease, Task: strp(id), Path: c.w.Rel(e.Path),
				Message: fmt.Sprintf("%s's lease_expires %q does not parse, so it counts as expired: any watcher takes the task over", id, raw),
				Fix:     fmt.Sprintf("nothing, or set a time (RFC 3339) by hand and commit it; git burl release %s --reason \"...\" gives it back now", id)})
		}
	}
	if e.Bucket == workflow.QA && c.held[id] {
		// A command is working on it now (an approve may have moved main
		// and not yet recorded DONE): judged when it is done.
		return
	}
	if e.Bucket == workflow.QA {
		if in, _ := integrate.WorkInMain(c.g, c.w.Config.MainBranch, t.BaseSHA(), t.Str(task.KeySubmittedSHA)); in {
			// Only an approve that recorded its intent put it there.
			if integrate.ReadIntent(c.w.Repo.CommonDir, id).Landed(c.g, c.w.Config.MainBranch, t.Str(task.KeySubmittedSHA)) {
				if c.mainDiverged() {
					c.unpublishedApprove(e)
				} else {
					c.interruptedApprove(e)
				}
			} else {
				c.landedOutside(e)
			}
			return
		}
	}
	wt := c.w.WorktreePath(t)
	if _, ok := c.branches[b]; !ok {
		f := Finding{Kind: MissingBranch, Task: strp(id), Path: c.w.Rel(e.Path)}
		f.Message = fmt.Sprintf("%s is in %s but its branch %s does not exist here", id, e.Bucket, b)
		tracking := c.w.Config.Remote + "/" + b
		if ok, _ := c.g.Test("show-ref", "--verify", "-q", "refs/remotes/"+tracking); ok {
			f.Repairable = true
			f.Fix = fmt.Sprintf("%s recreates it from %s with its worktree (as git burl worktree --ensure %s does)", repairCmd, tracking, id)
			f.repair = c.restore(e)
		} else if clone := c.claimedIn(id); clone != "" && clone != c.w.Clone() {
			c.report.Elsewhere = append(c.report.Elsewhere, Elsewhere{Task: id, Clone: clone})
			return
		} else {
			f.Fix = fmt.Sprintf("git burl sync --pull fetches it if another machine pushed it; if the work is lost: git burl release %s, then claim it again", id)
		}
		c.add(f)
		return
	}
	reg := c.worktreeAt(wt)
	if reg != nil && dirExists(wt) {
		if head, _, ok := integrate.Rebasing(gitx.In(wt)); ok {
			c.rebasing(e, wt, head)
			return
		}
	}
	if reg != nil && reg.Branch != b && dirExists(wt) {
		c.add(Finding{Kind: WorktreeBranch, Task: strp(id), Path: c.w.Rel(wt),
			Message: fmt.Sprintf("the worktree of %s has %q checked out, not its branch %s", id, reg.Branch, b),
			Fix:     fmt.Sprintf("git -C %s switch %s", wt, b)})
		return
	}
	if reg != nil && dirExists(wt) {
		return
	}
	f := Finding{Kind: MissingWorktree, Task: strp(id), Path: c.w.Rel(wt)}
	f.Message = fmt.Sprintf("%s is in %s but its worktree %s is missing", id, e.Bucket, f.Path)
	if other := c.checkedOut(b); other != nil && other.Path != filepath.Clean(wt) && dirExists(other.Path) {
		f.Message += fmt.Sprintf("; its branch %s is checked out at %s", b, other.Path)
		f.Fix = fmt.Sprintf("record that path: git burl worktree --ensure %s after moving the worktree back (git worktree move %s %s)", id, other.Path, wt)
		c.add(f)
		return
	}
	f.Repairable = true
	f.Fix = fmt.Sprintf("%s recreates it from branch %s (as git burl worktree --ensure %s does)", repairCmd, b, id)
	f.repair = c.restore(e)
	c.add(f)
}

// restore recreates a task's branch (from the remote) and worktree.
func (c *checker) restore(e workflow.Entry) func() (*change, error) {
	return func() (*change, error) {
		t := e.Task
		r := c.w.Repo
		rel, _, err := workspace.Restore(c.g, r.Root, r.WorktreesDir(), c.w.Config.Remote, t.Branch(), t.Worktree())
		if err != nil {
			return nil, err
		}
		ch := &change{action: fmt.Sprintf("recreated worktree %s of %s from branch %s", rel, e.ID, t.Branch()),
			details: map[string]any{"worktree": rel, "branch": t.Branch()}}
		if rel != t.Worktree() {
			t.SetStr(task.KeyWorktree, rel)
			if err := writeTask(e.Path, t); err != nil {
				return nil, err
			}
			ch.paths = []string{e.Path}
		}
		return ch, nil
	}
}

// interruptedApprove is a QA task whose commits are in main already: an
// approve was killed after it advanced main. The merge is the later step
// git proves completed, so repair records what approve would have: the
// completion, and the move to DONE. The worktree and branch, if left,
// are git burl clean's to remove.
func (c *checker) interruptedApprove(e workflow.Entry) {
	main := c.w.Config.MainBranch
	dst := c.w.DestPath(workflow.Done, nil, filepath.Base(e.Path))
	f := Finding{Kind: InterruptedApprove, Task: strp(e.ID), Path: c.w.Rel(e.Path), Repairable: true}
	f.Message = fmt.Sprintf("%s is in QA but its commits are in %s already: an approve was interrupted after it advanced %s", e.ID, main, main)
	f.Fix = fmt.Sprintf("%s records it as approved and moves it to %s (or: git burl approve %s)", repairCmd, c.w.Rel(dst), e.ID)
	f.repair = func() (*change, error) {
		t := e.Task
		now := time.Now().UTC()
		t.SetTime(task.KeyCompletedAt, now)
		t.AppendToSection("QA Report", fmt.Sprintf("### Approved — already in %s — %s by %s\n\n- recorded by git burl doctor --repair: an approve was interrupted after it advanced %s; git burl clean removes the worktree and branch it left\n",
			main, now.Format("2006-01-02T15:04:05Z"), c.w.Actor, main))
		if err := writeTask(e.Path, t); err != nil {
			return nil, err
		}
		if err := moveFile(e.Path, dst); err != nil {
			return nil, err
		}
		details := map[string]any{"from": "QA", "to": "DONE", "interrupted": "approve"}
		// What main this DONE stands for: the next push carries it along
		// (workflow.StrandedMerged), as for an approve's own DONE.
		if in := integrate.ReadIntent(c.w.Repo.CommonDir, e.ID); in != nil && in.Merged != "" {
			details["merged_sha"] = in.Merged
		}
		// Finishing the approve finishes its push of main too, or the work
		// would live in this clone only.
		if m := integrate.For(c.w); (c.w.Config.PushMainOnApprove || c.w.AutoPush()) && m.HasRemote() {
			pushed, err := m.PushAhead()
			details["main_pushed"] = pushed
			if err != nil {
				details["push_error"] = err.Error()
				fmt.Fprintf(c.w.Stderr, "burl: warning: %v (push %s by hand: git push %s %s)\n", err, main, c.w.Config.Remote, main)
			}
		}
		// The intent stays until this DONE is published (stale_approve_intent
		// then removes it): a DONE dropped again by the next pull is redone
		// by approve from it.
		return &change{action: fmt.Sprintf("moved %s QA → DONE (its commits were in %s; finishing an interrupted approve)", e.ID, main),
			paths: []string{e.Path, dst}, details: details}, nil
	}
	c.add(f)
}

func (c *checker) worktreeAt(p string) *workspace.Worktree {
	for i := range c.worktrees {
		if c.worktrees[i].Path == filepath.Clean(p) {
			return &c.worktrees[i]
		}
	}
	return nil
}

func (c *checker) checkedOut(branch string) *workspace.Worktree {
	for i := range c.worktrees {
		if c.worktrees[i].Branch == branch {
			return &c.worktrees[i]
		}
	}
	return nil
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// owner is the task a task branch or worktree belongs to, or "": the task
// with that ID, unless it records a different branch.
func (c *checker) owner(branch, dir string) string {
	for _, name := range []string{branch, filepath.Base(dir)} {
		id, ok := workflow.IDForBranch(name)
		if !ok {
			continue
		}
		es := c.byID[id]
		if len(es) == 0 {
			continue
		}
		if t := es[0].Task; t != nil && t.Branch() != "" && branch != "" && t.Branch() != branch {
			continue
		}
		return id
	}
	return ""
}

// orphans are task worktrees and task-* branches no task owns.
func (c *checker) orphans() {
	root := c.w.Repo.WorktreesDir()
	registered := map[string]bool{}
	for _, wt := range c.worktrees {
		rel, err := filepath.Rel(root, wt.Path)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		registered[wt.Path] = true
		owner := c.owner(wt.Branch, wt.Path)
		if workspace.Partial(wt.Path) {
			c.partial(wt.Path, owner)
		}
		if owner != "" {
			continue
		}
		what := "detached HEAD"
		if wt.Branch != "" {
			what = "branch " + wt.Branch
		}
		c.add(Finding{Kind: OrphanWorktree, Path: c.w.Rel(wt.Path),
			Message: fmt.Sprintf("worktree %s (%s) belongs to no task", c.w.Rel(wt.Path), what),
			Fix:     "git burl clean lists it and removes it with --yes (never with uncommitted changes unless --force)"})
	}
	ents, _ := os.ReadDir(root)
	for _, d := range ents {
		p := filepath.Join(root, d.Name())
		if !d.IsDir() || registered[p] {
			continue
		}
		c.add(Finding{Kind: OrphanWorktree, Path: c.w.Rel(p),
			Message: fmt.Sprintf("%s is a directory git does not know as a worktree", c.w.Rel(p)),
			Fix:     "look inside; remove it by hand if it holds nothing you need (burl never deletes it)"})
	}
	names := make([]string, 0, len(c.branches))
	for b := range c.branches {
		names = append(names, b)
	}
	sort.Strings(names)
	for _, b := range names {
		if _, ok := workflow.IDForBranch(b); !ok || c.owner(b, "") != "" {
			continue
		}
		f := Finding{Kind: OrphanBranch, Path: "refs/heads/" + b}
		f.Message = fmt.Sprintf("branch %s belongs to no task", b)
		main := c.w.Config.MainBranch
		if Merged(c.g, b, MainRefs(c.w)) {
			f.Fix = fmt.Sprintf("git burl clean --yes deletes it (it is merged into %s)", main)
		} else {
			f.Message += fmt.Sprintf(" and holds commits %s lacks", main)
			f.Fix = fmt.Sprintf("look at them (git log %s..%s); git burl clean --yes --force deletes it", main, b)
		}
		c.add(f)
	}
}

// rebasing reports a rebase stopped in a task's worktree (HEAD detached).
// One that an approve killed mid-rebase left (a QA task's branch, from its
// submitted commit) is aborted by repair, which puts the branch back where
// it was submitted; any other is the worker's to finish or abort.
func (c *checker) rebasing(e workflow.Entry, wt, head string) {
	t := e.Task
	f := Finding{Kind: RebaseInProgress, Task: strp(e.ID), Path: c.w.Rel(wt)}
	what := "a rebase"
	if head != "" {
		what += " of " + strings.TrimPrefix(head, "refs/heads/")
	}
	f.Message = fmt.Sprintf("%s is stopped in the worktree of %s (HEAD detached)", what, e.ID)
	sub := t.Str(task.KeySubmittedSHA)
	if e.Bucket == workflow.QA && integrate.ApproveRebase(gitx.In(wt), t.Branch(), sub) {
		f.Message = fmt.Sprintf("%s is stopped in the worktree of %s: an approve was killed while rebasing it", what, e.ID)
		f.Fix = fmt.Sprintf("%s aborts it (the branch goes back to its submitted commit %s), then git burl approve %s", repairCmd, gitx.Short(sub), e.ID)
		f.Repairable = true
		f.repair = func() (*change, error) {
			if _, err := integrate.AbortApproveRebase(gitx.In(wt), t.Branch(), sub); err != nil {
				return nil, err
			}
			return &change{action: "aborted the rebase left in " + f.Path, details: map[string]any{"worktree": f.Path}}, nil
		}
	} else {
		f.Fix = fmt.Sprintf("finish it (resolve, git -C %s rebase --continue) or abort it (git -C %s rebase --abort)", wt, wt)
	}
	c.add(f)
}

// partial reports a worktree a killed `git worktree add` left half made
// (a claim killed there leaves it for the next claim of the task). Repair
// completes its checkout, as claim does before handing it out.
func (c *checker) partial(wt, owner string) {
	f := Finding{Kind: PartialWorktree, Path: c.w.Rel(wt), Repairable: true}
	f.Message = fmt.Sprintf("worktree %s was left half made by a killed git worktree add: git shows every file of its branch deleted", f.Path)
	if owner != "" {
		f.Task = strp(owner)
		f.Message = fmt.Sprintf("the worktree of %s (%s) was left half made by a killed git worktree add: git shows every file of its branch deleted", owner, f.Path)
	}
	f.Fix = repairCmd + " completes its checkout (missing files only; nothing is overwritten)"
	f.repair = func() (*change, error) {
		if err := workspace.Rebuild(c.g, wt); err != nil {
			return nil, err
		}
		return &change{action: "completed the checkout of " + f.Path, details: map[string]any{"worktree": f.Path}}, nil
	}
	c.add(f)
}

// movesIn finds, among the uncommitted workflow files about to be
// committed by repair, the task files a killed command moved between
// buckets before it could log the move: the repair event records them
// so the event log's replay agrees with the folders.
func (c *checker) movesIn(paths []string) map[string]any {
	from, to := map[string]string{}, map[string]string{}
	for _, abs := range paths {
		id, ok := task.IDFromFileName(filepath.Base(abs))
		if !ok {
			continue
		}
		b := bucketOf(abs)
		if c.status[c.wtRel(abs)] == "??" {
			to[id] = b
		} else if strings.Contains(c.status[c.wtRel(abs)], "D") {
			from[id] = b
		}
	}
	out := map[string]any{}
	for id, b := range to {
		if a, ok := from[id]; ok && a != b {
			out[id] = map[string]any{"from": a, "to": b}
		}
	}
	return out
}

// tempFile is the temp file of an atomic write whose process was killed
// before its rename: the file it was to replace is still the truth.
func (c *checker) tempFile(abs string) {
	f := Finding{Kind: TempFile, Path: c.w.Rel(abs), Repairable: true}
	f.Message = fmt.Sprintf("%s is a temp file burl writes before replacing a file; the command that wrote it was killed before the replace", f.Path)
	f.Fix = fmt.Sprintf("%s deletes it (the file it was to replace is unchanged)", repairCmd)
	f.repair = func() (*change, error) {
		if err := os.Remove(abs); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		return &change{action: "deleted " + f.Path, details: map[string]any{"deleted": f.Path}}, nil
	}
	c.add(f)
}

// workflowBranch: the workflow branch belongs in the workflow worktree.
func (c *checker) workflowBranch() {
	r := c.w.Repo
	at := c.checkedOut(r.Branch)
	if at != nil && at.Path == filepath.Clean(r.Worktree) {
		return
	}
	f := Finding{Kind: WorkflowBranch, Path: c.w.Rel(r.Worktree)}
	cur := workflow.CurrentBranch(r.Worktree)
	f.Message = fmt.Sprintf("the workflow worktree %s has %q checked out, not the workflow branch %s", f.Path, cur, r.Branch)
	f.Fix = fmt.Sprintf("git -C %s switch %s", r.Worktree, r.Branch)
	if at != nil {
		f.Message += fmt.Sprintf("; %s is checked out at %s, where burl does not look", r.Branch, at.Path)
		f.Fix = fmt.Sprintf("git -C %s switch --detach (or git worktree remove %s), then %s", at.Path, at.Path, f.Fix)
	}
	c.add(f)
}

// uncommitted reports changes in the workflow worktree. Task files, the
// event log and other tracked workflow files are what an interrupted
// command leaves before its commit: repair commits them once the task
// files are settled. Anything else is not burl's and is only reported.
func (c *checker) uncommitted() {
	paths := make([]string, 0, len(c.status))
	for p := range c.status {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	wtRel := c.w.Rel(c.w.Repo.Worktree)
	workflowPrefix := c.wtRel(c.w.Dir) + "/"
	var leftovers []Finding
	var commit []string
	for _, p := range paths {
		code := c.status[p]
		abs := filepath.Join(c.w.Repo.Worktree, filepath.FromSlash(p))
		f := Finding{Path: c.w.Rel(abs)}
		rest, inWorkflow := strings.CutPrefix(p, workflowPrefix)
		id, isTask := "", false
		if inWorkflow {
			if _, ok := workflow.BucketOfDir(path.Dir(rest)); ok {
				id, isTask = task.IDFromFileName(path.Base(rest))
			}
		}
		isLog := inWorkflow && strings.HasPrefix(rest, workflow.EventsDirName+"/") && strings.HasSuffix(rest, ".ndjson")
		if inWorkflow && code == "??" && fsx.IsTemp(path.Base(rest)) {
			c.tempFile(abs)
			continue
		}
		switch {
		case !inWorkflow || (code == "??" && !isTask && !isLog):
			f.Kind = UnexpectedChange
			f.Message = fmt.Sprintf("%s (%s) is not workflow state burl wrote", f.Path, strings.TrimSpace(code))
			f.Fix = fmt.Sprintf("move it out of %s, or commit it yourself (git -C %s add -- %s && git -C %s commit)", wtRel, wtRel, p, wtRel)
			c.add(f)
			continue
		case !c.w.Config.WorkflowAutoCommit:
			continue // uncommitted is the normal state then
		}
		f.Kind = UncommittedChange
		if isTask {
			f.Task = strp(id)
		}
		f.Message = fmt.Sprintf("%s has uncommitted changes (%s), as a command killed before its commit leaves them", f.Path, strings.TrimSpace(code))
		if isTask && c.fileTrouble[id] {
			f.Fix = "settle " + id + "'s other findings first; then " + repairCmd + " commits it"
		} else if isTask && strings.Contains(code, "D") && len(c.byID[id]) == 0 {
			// Committing this would commit the loss of the task.
			f.Message = fmt.Sprintf("%s was deleted and %s is in no other bucket", f.Path, id)
			f.Fix = fmt.Sprintf("restore it: git -C %s checkout HEAD -- %s", wtRel, p)
		} else {
			f.Repairable = true
			f.Fix = repairCmd + " commits it (a repair event)"
			commit = append(commit, abs)
		}
		leftovers = append(leftovers, f)
	}
	moved := c.movesIn(commit)
	for _, f := range leftovers {
		if f.Repairable {
			f.repair = func() (*change, error) {
				var rels []string
				for _, p := range commit {
					rels = append(rels, c.w.Rel(p))
				}
				details := map[string]any{"committed": rels}
				if len(moved) > 0 {
					details["moved"] = moved
				}
				return &change{action: "committed " + strings.Join(rels, ", "), paths: commit, details: details}, nil
			}
		}
		c.add(f)
	}
}

// sparseDisk reports the files of old DONE months a sparse workflow
// worktree keeps on disk outside its cone when they are gone from disk:
// every reader would miss those tasks. Repair writes them back.
func (c *checker) sparseDisk() error {
	missing, err := c.w.MissingOutsideCone()
	if err != nil || len(missing) == 0 {
		return err
	}
	wtRel := c.w.Rel(c.w.Repo.Worktree)
	f := Finding{Kind: MissingOnDisk, Path: c.w.Rel(filepath.Join(c.w.Repo.Worktree, filepath.FromSlash(missing[0]))), Repairable: true}
	f.Message = fmt.Sprintf("%d committed file(s) outside the sparse cone of %s are not on disk (the first: %s), as a git sparse-checkout command run in %s leaves them; burl reads them from disk",
		len(missing), wtRel, f.Path, wtRel)
	f.Fix = repairCmd + " writes them back from the workflow branch"
	f.repair = func() (*change, error) {
		if err := c.w.RestoreOutsideCone(missing); err != nil {
			return nil, err
		}
		return &change{action: fmt.Sprintf("wrote %d file(s) back from the workflow branch", len(missing)),
			details: map[string]any{"restored": len(missing)}}, nil
	}
	c.add(f)
	return nil
}

// sparseOpt is the option git rm and git mv need for the old months'
// files of a sparse workflow worktree ("--sparse "), or "".
func (c *checker) sparseOpt() string {
	if c.w.Sparse() {
		return "--sparse "
	}
	return ""
}
