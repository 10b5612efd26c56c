package doctor

// The git side of each task: its base, branch and worktree as its bucket
// says they must be, approves interrupted on their way, and worktrees or
// branches no task owns.

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/lease"
	"github.com/burl-dev/burl/pkg/record"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

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
	if e.Bucket == workflow.Doing {
		if st := lease.Of(t, time.Now(), c.w.Config.LeaseGrace, c.w.Host); st.State == lease.Dead {
			// Its run is shown lost: nobody will finish it or give it back.
			c.add(Finding{Kind: HolderDead, Task: strp(id), Path: c.w.Rel(e.Path),
				Message: fmt.Sprintf("%s is held by a watcher of this machine that is gone: %s; its run is lost", id, st.Describe()),
				Fix:     fmt.Sprintf("git burl release %s gives it back to READY (branch and worktree kept); a running git burl watch takes it over at its next round", id)})
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
			// The landing record the approve did not live to write
			// (DESIGN §22), its sha256 in this repair's event.
			hash, err := record.Repaired(c.w, t, now, record.Landing{Kind: record.KindApprove, Recovered: true, Base: in.Base, Merged: in.Merged, MergeStyle: in.Style,
				Gates: record.RecoveredGates(c.w.Config, t)})
			if err != nil {
				return nil, err
			}
			details[record.KeyRecord] = hash
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
