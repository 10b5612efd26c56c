package doctor

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// leftGrace is how old a git lock, a temp file or an unfinished worktree
// must be before doctor calls it abandoned: their creators hold them for
// milliseconds. Where processes cannot be listed, only age can tell, and
// then it must cover a slow checkout.
const (
	leftGrace        = 5 * time.Second
	leftGraceBlind   = 10 * time.Minute
	gitLockRemoveFix = repairCmd + " removes it"
)

// olderThanGrace reports whether something git or burl created at mtime
// is abandoned: old enough, and no git process runs where it could be
// holding it.
func (c *checker) abandoned(mtime time.Time) bool {
	age := time.Since(mtime)
	if age < leftGrace {
		return false
	}
	if c.gitBusy == nil {
		dirs := []string{c.w.Repo.CommonDir}
		for _, wt := range c.worktrees {
			dirs = append(dirs, wt.Path)
		}
		running, known := osx.GitRunningIn(dirs)
		c.gitBusy = &gitBusy{running: running, known: known}
	}
	if !c.gitBusy.known {
		return age > leftGraceBlind
	}
	return !c.gitBusy.running
}

type gitBusy struct{ running, known bool }

// gitLocks reports git's own lock files that no git process holds: a git
// killed mid-command (often burl's own commit) leaves index.lock behind,
// and every later git command that needs it fails until it is removed.
func (c *checker) gitLocks() {
	common := c.w.Repo.CommonDir
	var cands []string
	for _, n := range []string{"index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "shallow.lock"} {
		cands = append(cands, filepath.Join(common, n))
	}
	wts, _ := filepath.Glob(filepath.Join(common, "worktrees", "*"))
	for _, d := range wts {
		cands = append(cands, filepath.Join(d, "index.lock"), filepath.Join(d, "HEAD.lock"))
	}
	_ = filepath.WalkDir(filepath.Join(common, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			cands = append(cands, p)
		}
		return nil
	})
	for _, p := range cands {
		st, err := os.Lstat(p)
		if err != nil || !c.abandoned(st.ModTime()) {
			continue
		}
		p := p
		c.add(Finding{Kind: StaleGitLock, Path: c.w.Rel(p), Repairable: true, gitLock: p,
			Message: fmt.Sprintf("git lock %s is %s old and no git process holds it: a git command was killed, and every git command that needs it fails until it is gone", c.w.Rel(p), time.Since(st.ModTime()).Round(time.Second)),
			Fix:     fmt.Sprintf("%s (or, when no git runs in this repository: rm %s)", gitLockRemoveFix, p)})
	}
}

// worktreeStates reports task worktrees that a killed git left half-way:
// a rebase in progress (an approve killed mid-rebase: detached HEAD, and
// every later rebase refuses to start) and a checkout git never finished.
func (c *checker) worktreeStates() {
	for _, wt := range c.worktrees {
		id := c.owner(wt.Branch, wt.Path)
		if wt.Partial() {
			meta := c.gitDirOf(wt.Path)
			st, err := os.Stat(filepath.Join(meta, "locked"))
			if err != nil || !c.abandoned(st.ModTime()) || c.taskBusy(id) {
				continue
			}
			f := Finding{Kind: PartialWorktree, Path: c.w.Rel(wt.Path), Repairable: true}
			if id != "" {
				f.Task = strp(id)
			}
			f.Message = fmt.Sprintf("worktree %s was never finished: its git worktree add was killed mid-checkout (it is still locked \"initializing\"), so its files and index are not its branch's", f.Path)
			f.Fix = repairCmd + " removes it (its task's worktree is then recreated from the branch)"
			path := wt.Path
			f.repair = func() (*change, error) {
				if err := workspace.RemovePartial(c.g, path); err != nil {
					return nil, err
				}
				return &change{action: "removed the unfinished worktree " + c.w.Rel(path), details: map[string]any{"worktree": c.w.Rel(path)}}, nil
			}
			c.add(f)
			continue
		}
		rb := c.rebaseDir(wt.Path)
		if rb == "" || id == "" || c.taskBusy(id) {
			continue
		}
		st, err := os.Stat(rb)
		if err != nil || !c.abandoned(st.ModTime()) {
			continue
		}
		f := Finding{Kind: RebaseInProgress, Task: strp(id), Path: c.w.Rel(wt.Path), Repairable: true}
		f.Message = fmt.Sprintf("a rebase is in progress in %s (%s): an approve was killed mid-rebase, leaving a detached HEAD, and every later approve's rebase refuses to start", f.Path, c.w.Rel(rb))
		f.Fix = fmt.Sprintf("%s aborts it (git -C %s rebase --abort), which puts the task branch back where it was", repairCmd, wt.Path)
		path := wt.Path
		f.repair = func() (*change, error) {
			if _, err := gitx.In(path).Run("rebase", "--abort"); err != nil {
				return nil, err
			}
			return &change{action: "aborted the rebase left in " + c.w.Rel(path), details: map[string]any{"worktree": c.w.Rel(path)}}, nil
		}
		c.add(f)
	}
}

// rebaseDir is the state directory of a rebase in progress in the
// worktree at path, or "".
func (c *checker) rebaseDir(path string) string {
	meta := c.gitDirOf(path)
	if meta == "" {
		return ""
	}
	for _, n := range []string{"rebase-merge", "rebase-apply"} {
		if dirExists(filepath.Join(meta, n)) {
			return filepath.Join(meta, n)
		}
	}
	return ""
}

// gitDirOf is the administrative directory of the worktree at path: the
// common dir for the main worktree, .git/worktrees/<name> for a linked one.
func (c *checker) gitDirOf(path string) string {
	if c.gitDirs == nil {
		c.gitDirs = map[string]string{filepath.Clean(c.w.Repo.Root): c.w.Repo.CommonDir}
		metas, _ := filepath.Glob(filepath.Join(c.w.Repo.CommonDir, "worktrees", "*"))
		for _, m := range metas {
			raw, err := os.ReadFile(filepath.Join(m, "gitdir"))
			if err != nil {
				continue
			}
			c.gitDirs[filepath.Dir(filepath.Clean(strings.TrimSpace(string(raw))))] = m
		}
	}
	return c.gitDirs[filepath.Clean(path)]
}

// taskBusy reports whether a live command holds task id's lock: what it
// leaves half-way meanwhile is its work in progress.
func (c *checker) taskBusy(id string) bool {
	if id == "" {
		return false
	}
	st, err := c.w.Locks.Stat(id)
	return err == nil && !st.Dead && !st.Unreadable
}

// tempName matches the temp files of burl's atomic writes: the target's
// name plus random digits (natefinch/atomic), or fsx's mode probe.
var tempName = regexp.MustCompile(`(\.(md|ya?ml|json)[0-9]+|^\.burl-mode-[0-9]+)$`)

// tempFile reports a temp file a killed atomic write left, or false when
// rel (workflow-dir relative, slash-separated) is not one.
func (c *checker) tempFile(abs, rel string) bool {
	if !tempName.MatchString(filepath.Base(rel)) {
		return false
	}
	st, err := os.Lstat(abs)
	if err != nil || !st.Mode().IsRegular() || time.Since(st.ModTime()) < leftGrace {
		return err == nil // a fresh one is a write in progress: not foreign
	}
	f := Finding{Kind: TempFile, Path: c.w.Rel(abs), Repairable: true}
	if id, ok := task.IDFromFileName(strings.TrimRight(filepath.Base(rel), "0123456789")); ok {
		f.Task = strp(id)
	}
	f.Message = fmt.Sprintf("%s is the temp file of an atomic write burl was killed in: the real file was never replaced by it", f.Path)
	f.Fix = repairCmd + " deletes it"
	f.repair = func() (*change, error) {
		if err := os.Remove(abs); err != nil {
			return nil, err
		}
		return &change{action: "deleted the temp file " + c.w.Rel(abs), details: map[string]any{"removed": c.w.Rel(abs)}}, nil
	}
	c.add(f)
	return true
}

// replayed is each task's bucket by the event log: the destination of its
// last event that moved it (or READY for its add). The folder is the
// truth, but the two disagree only after a hand edit or a lost file.
func (c *checker) replayed() map[string]workflow.Bucket {
	if c.replay != nil {
		return c.replay
	}
	c.replay = map[string]workflow.Bucket{}
	evs, _, err := events.Read(c.w.EventsDir(), events.Filter{})
	if err != nil {
		return c.replay
	}
	for _, e := range evs {
		id := e.TaskID()
		if id == "" {
			continue
		}
		if to, ok := e.Details["to"].(string); ok {
			if b, ok := workflow.ParseBucket(to); ok {
				c.replay[id] = b
			}
		} else if e.Action == "add" {
			c.replay[id] = workflow.Ready
		}
	}
	return c.replay
}

// lost reports tasks the event log (by an add or a move: other events may
// name a task that never existed, as lock clear does) or the last
// workflow commit knows but
// no bucket holds: a file deleted by hand (or by a bad merge). Repair
// restores the task's last version from the workflow branch; committing
// the deletion would lose the task for good.
func (c *checker) lost() {
	wt := gitx.In(c.w.Repo.Worktree)
	wfRel := c.wtRel(c.w.Dir)
	inHead := map[string]string{}
	if out, err := wt.Run("ls-tree", "-r", "--name-only", "HEAD", "--", wfRel); err == nil {
		for _, p := range strings.Split(out, "\n") {
			rest, ok := strings.CutPrefix(p, wfRel+"/")
			if !ok {
				continue
			}
			b, _, _ := strings.Cut(rest, "/")
			if _, ok := workflow.ParseBucket(b); !ok {
				continue
			}
			if id, ok := task.IDFromFileName(filepath.Base(p)); ok {
				inHead[id] = p
			}
		}
	}
	known := map[string]bool{}
	for id := range c.replayed() {
		known[id] = true
	}
	for id := range inHead {
		known[id] = true
	}
	for _, id := range sortedIDs(known) {
		if _, ok := c.byID[id]; ok {
			continue
		}
		c.fileTrouble[id] = true
		f := Finding{Kind: LostTask, Task: strp(id)}
		src, rel := "HEAD", inHead[id]
		if rel == "" {
			src, rel = c.lastDeleted(wt, wfRel, id)
		}
		if rel == "" {
			f.Path = c.w.Rel(c.w.Dir)
			f.Message = fmt.Sprintf("%s is in the event log but in no bucket, and no version of its file is on the workflow branch", id)
			f.Fix = "restore its file from a clone that has it (git burl sync --pull), or from a backup"
			c.add(f)
			continue
		}
		abs := filepath.Join(c.w.Repo.Worktree, filepath.FromSlash(rel))
		f.Path = c.w.Rel(abs)
		f.Repairable = true
		f.Message = fmt.Sprintf("%s is in no bucket: its file %s was deleted (the last version is in %s of the workflow branch)", id, f.Path, gitx.Short(src))
		f.Fix = fmt.Sprintf("%s restores it from the workflow branch (git -C %s checkout %s -- %s)", repairCmd, c.w.Rel(c.w.Repo.Worktree), gitx.Short(src), rel)
		f.repair = func() (*change, error) {
			data, err := wt.RunInput(nil, "show", src+":"+rel)
			if err != nil {
				return nil, err
			}
			if err := fsx.WriteFile(abs, data); err != nil {
				return nil, err
			}
			b := bucketOf(abs)
			if _, ok := workflow.ParseBucket(b); !ok {
				b = filepath.Base(filepath.Dir(filepath.Dir(abs))) // a sharded bucket
			}
			return &change{action: fmt.Sprintf("restored %s from %s of the workflow branch", c.w.Rel(abs), gitx.Short(src)), paths: []string{abs},
				details: map[string]any{"restored": c.w.Rel(abs), "from_commit": src, "to": b}}, nil
		}
		c.add(f)
	}
}

// lastDeleted finds the workflow commit that deleted task id's file and
// returns the commit before it (which has the file) and the file's path.
func (c *checker) lastDeleted(wt gitx.Git, wfRel, id string) (string, string) {
	out, err := wt.Run("log", "-1", "--no-renames", "--diff-filter=D", "--format=%H", "--name-only", "HEAD", "--",
		":(glob)"+wfRel+"/**/"+id+"-*.md", ":(glob)"+wfRel+"/**/"+id+".md")
	if err != nil || out == "" {
		return "", ""
	}
	lines := strings.Split(out, "\n")
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l != "" {
			return lines[0] + "^", l
		}
	}
	return "", ""
}

// eventMismatch reports a task whose committed bucket is not where the
// event log's replay puts it. Only a move no event recorded makes this,
// and a command killed between its move and its log entry is the one
// burl makes: repair records that move when a verb makes it and the
// frontmatter fits the bucket. Anything else is reported for a human.
func (c *checker) eventMismatch(e workflow.Entry) {
	want, ok := c.replayed()[e.ID]
	if !ok || want == e.Bucket || !c.committed(e.Path) {
		return
	}
	f := Finding{Kind: EventMismatch, Task: strp(e.ID), Path: c.w.Rel(e.Path)}
	f.Message = fmt.Sprintf("%s is in %s but the event log's last move put it in %s", e.ID, e.Bucket, want)
	verb, legal := transitions[[2]workflow.Bucket{want, e.Bucket}]
	if !legal || len(violations(e.Task, e.Bucket)) > 0 {
		f.Fix = fmt.Sprintf("find out which is right (git burl log %s; git -C %s log -- %s); move the file to the right bucket by hand and commit",
			e.ID, c.w.Rel(c.w.Repo.Worktree), c.wtRel(e.Path))
		c.add(f)
		return
	}
	f.Message += fmt.Sprintf(": a %s was killed after its move, before its event", verb)
	f.Fix = repairCmd + " records the move in the event log"
	f.Repairable = true
	f.repair = func() (*change, error) {
		return &change{action: fmt.Sprintf("recorded the move of %s %s → %s (an interrupted %s)", e.ID, want, e.Bucket, verb),
			details: map[string]any{"from": string(want), "to": string(e.Bucket), "interrupted": verb}}, nil
	}
	c.add(f)
}

func sortedIDs(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := task.IDNumber(out[i])
		b, _ := task.IDNumber(out[j])
		return a < b || a == b && out[i] < out[j]
	})
	return out
}

// unpushed reports what a command killed between its commit and its push
// left in this clone only, by the remote-tracking refs (no network): with
// push_main_on_approve, main ahead of the remote's main (an approve's
// fast-forward); with workflow_auto_push, the workflow branch ahead of
// the remote's. Nothing else would ever push them.
func (c *checker) unpushed() {
	w := c.w
	if !w.HasRemote() {
		return
	}
	ahead := func(branch string) bool {
		local, err := c.g.Run("rev-parse", "-q", "--verify", "refs/heads/"+branch)
		if err != nil {
			return false
		}
		remote, err := c.g.Run("rev-parse", "-q", "--verify", gitx.Tracking(w.Config.Remote, branch))
		if err != nil || remote == local {
			return false
		}
		in, _ := c.g.Test("merge-base", "--is-ancestor", remote, local)
		return in
	}
	main := w.Config.MainBranch
	if w.Config.PushMainOnApprove && ahead(main) {
		f := Finding{Kind: UnpushedMain, Path: "refs/heads/" + main, Repairable: true}
		f.Message = fmt.Sprintf("%s is ahead of %s/%s and push_main_on_approve is on: an approve was killed after its fast-forward, before its push, so that work is in this clone only", main, w.Config.Remote, main)
		f.Fix = fmt.Sprintf("%s pushes it (a fast-forward push: git push %s %s)", repairCmd, w.Config.Remote, main)
		f.repair = func() (*change, error) {
			if _, err := integrate.For(w).PushAhead(); err != nil {
				return nil, err
			}
			return &change{action: "pushed " + main + " to " + w.Config.Remote, noEvent: true}, nil
		}
		c.add(f)
	}
	if wb := w.Repo.Branch; w.AutoPush() && ahead(wb) {
		f := Finding{Kind: UnpushedWorkflow, Path: "refs/heads/" + wb, Repairable: true}
		f.Message = fmt.Sprintf("the workflow branch %s is ahead of %s/%s with workflow_auto_push on: a command was killed after its commit, before its push", wb, w.Config.Remote, wb)
		f.Fix = fmt.Sprintf("%s pushes it (as git burl sync --push does)", repairCmd)
		f.repair = func() (*change, error) {
			if err := w.PushWorkflow(); err != nil {
				return nil, err
			}
			return &change{action: "pushed " + wb + " to " + w.Config.Remote, noEvent: true}, nil
		}
		c.add(f)
	}
}
