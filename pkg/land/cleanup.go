package land

// What approve (and settling a merged pull request) leave behind once a
// task is DONE: its worktree, its branch, the copy of it on the remote.

import (
	"fmt"
	"os"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/integrate"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// cleanup removes an approved task's worktree and branch. The work is in
// main by now, so problems are warnings (git burl clean retries), and a
// branch holding commits main lacks is kept.
func cleanup(w *workflow.Workflow, t *task.Task) {
	g := w.Repo.Git
	if !RemoveWorktree(w, t) {
		return
	}
	b := t.Branch()
	if w.Config.PushTaskBranchOnSubmit {
		DeleteRemoteBranch(w, b, t.Str(task.KeySubmittedSHA))
	}
	tip, _ := g.Resolve("refs/heads/" + b)
	if tip == "" {
		return
	}
	// Most often approve has just moved main to the branch's tip.
	main, _ := g.Resolve("refs/heads/" + w.Config.MainBranch)
	if tip != main {
		if in, _ := g.Test("merge-base", "--is-ancestor", tip, main); !in {
			fmt.Fprintf(w.Stderr, "burl: warning: kept branch %s: it has commits that %s lacks\n", b, w.Config.MainBranch)
			return
		}
	}
	if _, err := g.Run("branch", "-D", b); err != nil {
		fmt.Fprintf(w.Stderr, "burl: warning: could not delete branch %s: %v\n", b, err)
	}
}

// RemoveWorktree removes a landed task's worktree, if it has one here;
// false (with a warning: git burl clean retries) when it could not.
func RemoveWorktree(w *workflow.Workflow, t *task.Task) bool {
	dir := w.WorktreePath(t)
	if dir == "" {
		return true
	}
	if _, err := os.Stat(dir); err != nil {
		return true
	}
	// git refuses to remove a worktree with changes; build output alone is
	// no reason to keep it. Asked only then: a git status fewer for the
	// clean worktree of nearly every approve.
	err := workspace.Remove(w.Repo.Git, dir, false)
	if err != nil {
		if _, onlyBuild, _ := workspace.Uncommitted(gitx.In(dir)); onlyBuild {
			err = workspace.Remove(w.Repo.Git, dir, true)
		}
	}
	if err != nil {
		fmt.Fprintf(w.Stderr, "burl: warning: could not remove worktree %s: %v (git burl clean removes it later)\n", w.Rel(dir), err)
		return false
	}
	return true
}

// DeleteRemoteBranch removes from the remote a task branch that
// push_task_branch_on_submit published, once it holds nothing but what was
// approved (the submitted commit, which approve may have rebased, or
// commits main has): burl put it there, and nothing else would ever take
// it away. What this clone knows of the remote's branch is its
// remote-tracking ref, which the push set; a branch the remote has moved
// on since is kept.
func DeleteRemoteBranch(w *workflow.Workflow, b, submitted string) {
	remote, g := w.Config.Remote, w.Repo.Git
	tracking := gitx.Tracking(remote, b)
	if !w.HasRemote() {
		return
	}
	tip, err := g.Run("rev-parse", "-q", "--verify", tracking)
	if err != nil {
		return
	}
	if tip != submitted {
		if in, _ := g.Test("merge-base", "--is-ancestor", tip, "refs/heads/"+w.Config.MainBranch); !in {
			fmt.Fprintf(w.Stderr, "burl: warning: kept %s/%s: it has commits that %s lacks\n", remote, b, w.Config.MainBranch)
			return
		}
	}
	// The lease makes the deletion a compare-and-swap: a branch pushed
	// again meanwhile survives.
	if _, err := g.Run("push", "-q", "--force-with-lease=refs/heads/"+b+":"+tip, remote, ":refs/heads/"+b); err != nil {
		if remoteBranchGone(w, b) {
			// A forge deletes a merged pull request's branch itself
			// (GitHub's auto-delete, Gitea's "delete branch after merge"):
			// what was to be deleted is gone, which is no failure.
			_, _ = g.Run("update-ref", "-d", tracking)
			fmt.Fprintf(w.Stderr, "burl: %s was deleted from %s already (a forge does that when it merges); nothing left to delete\n", b, remote)
			return
		}
		fmt.Fprintf(w.Stderr, "burl: warning: could not delete %s from %s: %v (git push %s --delete %s)\n", b, remote, err, remote, b)
	}
}

// remoteBranchGone reports whether the remote answered that it has no
// branch b (not merely that it could not be reached).
func remoteBranchGone(w *workflow.Workflow, b string) bool {
	_, err := w.Repo.Git.Run("ls-remote", "--exit-code", "--heads", w.Config.Remote, "refs/heads/"+b)
	return gitx.ExitCodeOf(err) == 2
}

// dropIntent removes an approve's intent once DONE is committed. A record
// left behind is harmless (it names a task no longer in QA) and doctor
// reports it.
func dropIntent(w *workflow.Workflow, id string) {
	if err := integrate.DropIntent(w.Repo.CommonDir, id); err != nil {
		fmt.Fprintf(w.Stderr, "burl: warning: could not remove the approve record of %s: %v (git burl doctor --repair removes it)\n", id, err)
	}
}
