// Package integrate is how task work meets the main branch: choosing the
// integration base (fetching and fast-forwarding local main without ever
// switching or dirtying a worktree), rebasing a task branch onto it, and
// advancing main by fast-forward only.
package integrate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Main names the integration branch and where it is shared.
type Main struct {
	Git    gitx.Git // in the main worktree
	Branch string   // main_branch
	Remote string   // remote; ignored when not configured in git
	// Repo answers HasRemote from the git config it has already read.
	Repo *repo.Repo
	// Lock is held around the fast-forward of a checked-out branch, so
	// that concurrent burl commands do not see each other's half-done
	// merge (index updated, branch not yet) as a dirty worktree.
	Lock func() (*lock.Lock, error)
	// Warn, when set, is told when the remote cannot be reached and local
	// main is used as it is, or when local main is left behind (Behind).
	Warn io.Writer
	// Behind lets Base return the remote's main without fast-forwarding
	// local main when that is checked out with uncommitted changes: claim
	// only needs the commit, and a human editing in the main worktree must
	// not stop every agent's claim. Approve, which must move main, leaves
	// it false.
	Behind bool
	// Busy reports an approve in flight on this machine (it holds the main
	// lock), which may have advanced local main past the remote's for a
	// moment.
	Busy func() bool
	// Pushed: approve pushes main (push_main_on_approve or auto-push), so
	// the remote's main is where landings go. A claim (Behind) during an
	// approve on this machine then starts from the remote's main: local
	// main may hold that approve's fast-forward, not pushed yet, and gone
	// again if its push loses; a task based on it would carry another
	// task's work in its range.
	Pushed bool
	// Fresh reports that the remote's main was fetched a moment ago with
	// the workflow branch, by the transition under way: Base does not fetch
	// it again (DESIGN §28: one fetch per transition).
	Fresh func() bool
	// Orphaned, set by ForLanding, names where local main goes back to when
	// it is ahead of the remote's with commits no DONE stands for ("" to
	// leave it).
	Orphaned func(local, remote string) string
}

// ForLanding is For(w) for an approve that holds the main lock, with
// workflow_auto_push: local main ahead of the remote's with commits that only an
// approve killed before its DONE can have left (every one still on its
// task branch, past what this clone's unpushed DONE tasks landed) goes back
// first. Built on, they would reach the remote's main with another task's
// DONE and never with their own (DESIGN §15: work on main implies DONE).
// The killed approve is then redone from its branch.
func ForLanding(w *workflow.Workflow) Main {
	m := For(w)
	if !w.AutoPush() || !m.HasRemote() {
		// Without auto-push local main ahead is how approves accumulate,
		// and the workflow branch's remote copy cannot say which are DONE.
		return m
	}
	m.Orphaned = func(local, remote string) string {
		to := remote
		if keep, err := w.StrandedMerged(); err == nil && keep != "" {
			after, _ := m.Git.Test("merge-base", "--is-ancestor", remote, keep)
			within, _ := m.Git.Test("merge-base", "--is-ancestor", keep, local)
			if after && within {
				to = keep
			}
		}
		if to == local {
			return ""
		}
		if held, err := m.heldElsewhere(local, to); err != nil || !held {
			return ""
		}
		return to
	}
	return m
}

// For is the workflow's main branch, as its config names it.
func For(w *workflow.Workflow) Main {
	busy := func() bool {
		st, err := w.Locks.Stat(lock.Main)
		return err == nil && !st.Dead && !st.Unreadable
	}
	return Main{Git: w.Repo.Git, Branch: w.Config.MainBranch, Remote: w.Config.Remote, Repo: w.Repo, Lock: w.LockFastForward, Warn: w.Stderr, Busy: busy, Fresh: w.FreshMain,
		Pushed: w.Config.PushMainOnApprove || w.AutoPush()}
}

// HasRemote reports whether the remote is configured in this clone.
func (m Main) HasRemote() bool { return m.Repo.HasRemote(m.Remote) }

func (m Main) rev(ref string) string {
	sha, err := m.Git.Run("rev-parse", "-q", "--verify", ref+"^{commit}")
	if err != nil {
		return ""
	}
	return sha
}

// MovedFrom reports, after a refused push of main, whether the remote's
// main has moved on from base (fetched now): a race lost to another
// clone, not a remote that refused the push for another reason.
func (m Main) MovedFrom(base string) bool {
	if err := m.Git.FetchTracking(m.Remote, m.Branch); err != nil {
		return false
	}
	tip := m.rev(gitx.Tracking(m.Remote, m.Branch))
	return tip != "" && tip != base
}

// PushAhead pushes local main to the remote when the remote's main is
// behind it (an ancestor): what an approve killed between its local
// fast-forward and its push leaves, with push_main_on_approve on. The
// push is a plain fast-forward push, so a remote that moved on meanwhile
// refuses it and nothing is overwritten. It reports whether it pushed.
func (m Main) PushAhead() (bool, error) {
	if !m.HasRemote() {
		return false, nil
	}
	if err := m.Git.FetchTracking(m.Remote, m.Branch); err != nil {
		return false, err
	}
	local, remote := m.rev("refs/heads/"+m.Branch), m.rev(gitx.Tracking(m.Remote, m.Branch))
	if local == "" || local == remote {
		return false, nil
	}
	if remote != "" {
		if in, err := m.Git.Test("merge-base", "--is-ancestor", remote, local); err != nil || !in {
			return false, err
		}
	}
	if _, err := m.Git.Run("push", "-q", m.Remote, local+":refs/heads/"+m.Branch); err != nil {
		return false, errs.Wrap(err, errs.Git, "Cannot push "+m.Branch)
	}
	_ = m.Git.FetchTracking(m.Remote, m.Branch)
	return true, nil
}

// Base is the integration base (DESIGN §9): after a fetch, local main is
// fast-forwarded to <remote>/<main> when it is behind; when it is ahead
// (approvals not pushed) local main is the base; diverged is an error.
// It returns the base commit.
func (m Main) Base() (string, error) {
	return m.BaseFrom(m.rev("refs/heads/" + m.Branch))
}

// BaseFrom is Base for a caller that has just read local main's commit
// ("" when it does not exist).
func (m Main) BaseFrom(local string) (string, error) {
	localRef := "refs/heads/" + m.Branch
	if !m.HasRemote() {
		if local == "" {
			return "", errs.New(errs.User, "main branch %q does not exist", m.Branch).
				WithFix("set main_branch in .burl/.workflow/config.yaml to your integration branch")
		}
		return local, nil
	}
	if err := m.fetch(); err != nil {
		// An empty remote, or one without main yet, is not fatal: work from local main.
		if local == "" {
			return "", errs.Wrap(err, errs.Git, fmt.Sprintf("Cannot fetch %s/%s", m.Remote, m.Branch))
		}
		if m.Warn != nil {
			why := err.Error()
			var ge *gitx.Error
			if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) != "" {
				why = strings.TrimSpace(ge.Stderr)
			}
			fmt.Fprintf(m.Warn, "burl: warning: cannot fetch %s from %s, so local %s (%s) is used as it is: %s\n",
				m.Branch, m.Remote, m.Branch, gitx.Short(local), firstLine(why))
		}
		return local, nil
	}
	remote := m.rev(gitx.Tracking(m.Remote, m.Branch))
	if m.Behind && m.Pushed && remote != "" && remote != local && m.Busy != nil && m.Busy() {
		// A landing is under way here (see Pushed): local main is its.
		return remote, nil
	}
	deadline := time.Now().Add(divergenceWait)
	// Concurrent claims all find main behind and race to fast-forward it;
	// the losers find main moved (usually by that same fast-forward) and
	// judge again from where it is now, rather than fail.
	for attempt := 1; ; attempt++ {
		base, err := m.settle(local, remote)
		if err == nil {
			return base, nil
		}
		now := m.rev(localRef)
		var div *DivergedError
		if m.Behind && errors.As(err, &div) && m.Busy != nil && m.Busy() && time.Now().Before(deadline) {
			// An approve on this machine has advanced local main and not
			// yet pushed it (or is rolling it back after losing the push
			// race): a passing state. Wait for it, then judge afresh.
			time.Sleep(100 * time.Millisecond)
			_ = m.Git.FetchTracking(m.Remote, m.Branch)
			local, remote = m.rev(localRef), m.rev(gitx.Tracking(m.Remote, m.Branch))
			continue
		}
		if now == local || attempt == 3 {
			return "", err
		}
		local = now
	}
}

// fetch updates the remote-tracking ref of main, unless the transition
// under way fetched it already.
func (m Main) fetch() error {
	if m.Fresh != nil && m.Fresh() {
		return nil
	}
	return m.Git.FetchTracking(m.Remote, m.Branch)
}

// divergenceWait bounds how long a claim waits for an approve in flight on
// this machine before a divergence of main counts as lasting.
const divergenceWait = 60 * time.Second

// DivergedError is local main and the remote's main each holding commits
// the other lacks, with no approve in flight to explain it (exit 3).
type DivergedError struct{ Err *errs.Error }

func (d *DivergedError) Error() string      { return d.Err.Error() }
func (d *DivergedError) Unwrap() error      { return d.Err }
func (d *DivergedError) ErrKind() errs.Kind { return errs.Git }

// settle is Base's decision for one reading of local and remote main.
func (m Main) settle(local, remote string) (string, error) {
	switch {
	case remote == "" || remote == local:
		if local == "" {
			return "", errs.New(errs.User, "main branch %q does not exist locally or on %s", m.Branch, m.Remote)
		}
		return local, nil
	case local == "":
		if _, err := m.Git.Run("branch", "-q", "--track", m.Branch, m.Remote+"/"+m.Branch); err != nil {
			return "", err
		}
		return remote, nil
	}
	if behind, err := m.Git.Test("merge-base", "--is-ancestor", local, remote); err != nil {
		return "", err
	} else if behind {
		if err := m.Advance(local, remote); err != nil {
			var dirty *DirtyError
			if !m.Behind || !errors.As(err, &dirty) {
				return "", err
			}
			if m.Warn != nil {
				fmt.Fprintf(m.Warn, "burl: warning: %s is checked out in %s with %s, so it stays at %s; starting from %s/%s (%s)\n",
					m.Branch, dirty.Path, dirty.why(), gitx.Short(local), m.Remote, m.Branch, gitx.Short(remote))
			}
		}
		return remote, nil
	}
	if ahead, err := m.Git.Test("merge-base", "--is-ancestor", remote, local); err != nil {
		return "", err
	} else if ahead {
		if m.Orphaned == nil {
			return local, nil
		}
		to := m.Orphaned(local, remote)
		if to == "" {
			return local, nil
		}
		if err := m.Rewind(local, to); err != nil {
			return "", err
		}
		if m.Warn != nil {
			fmt.Fprintf(m.Warn, "burl: warning: local %s (%s) held commits of an approve that stopped before its DONE, all still on their task branch; %s is back at %s, and that approve is redone when it runs again\n",
				m.Branch, gitx.Short(local), m.Branch, gitx.Short(to))
		}
		return to, nil
	}
	if held, err := m.heldElsewhere(local, remote); err == nil && held {
		// Every commit only local main has is on another branch: an approve
		// killed after its fast-forward and before its push left them, and
		// its task branch keeps them. The remote's main is the truth; local
		// main goes back to it, and that approve is redone from the branch.
		if err := m.Rewind(local, remote); err == nil {
			if m.Warn != nil {
				fmt.Fprintf(m.Warn, "burl: warning: local %s (%s) held only commits of an approve that never reached %s, all still on their task branch; %s is back at %s/%s (%s)\n",
					m.Branch, gitx.Short(local), m.Remote, m.Branch, m.Remote, m.Branch, gitx.Short(remote))
			}
			return remote, nil
		}
	}
	r := m.Remote + "/" + m.Branch
	return "", &DivergedError{Err: errs.New(errs.Git, "local %s (%s) and %s (%s) have diverged, and no burl approve is running on this machine", m.Branch, gitx.Short(local), r, gitx.Short(remote)).
		WithFix("nothing is lost while you look: git cherry -v %s %s lists what only local %s has, marking with - what %s has already (as approved copies). "+
			"All -: move %s to %s (git branch -f %s %s, or git reset --keep %s where it is checked out). "+
			"Any +: that is approved work not pushed yet: git rebase %s %s && git push %s %s",
			r, m.Branch, m.Branch, r, m.Branch, r, m.Branch, r, r, r, m.Branch, m.Remote, m.Branch)}
}

// heldElsewhere reports whether every commit of local that remote lacks is
// on a task branch (task-*), so that moving main off them loses nothing and
// leaves alone a main with commits of the user's own.
func (m Main) heldElsewhere(local, remote string) (bool, error) {
	out, err := m.Git.Run("rev-list", "-n", "1", local, "--not", remote, "--branches=task-*")
	return err == nil && out == "", err
}

// Advance moves main from old to new, fast-forward only, never switching a
// worktree: with merge --ff-only where main is checked out and clean, with
// a compare-and-swap update-ref where it is not checked out; where it is
// checked out and dirty it fails (exit 3) and changes nothing.
func (m Main) Advance(old, new string) error {
	wt, err := m.checkedOut()
	if err != nil {
		return err
	}
	if wt == nil {
		if _, err := m.Git.Run("update-ref", "-m", "burl: fast-forward", "refs/heads/"+m.Branch, new, old); err != nil {
			return errs.Wrap(err, errs.Git, fmt.Sprintf("Cannot fast-forward %s", m.Branch)).
				WithFix("another process moved %s meanwhile; run the command again", m.Branch)
		}
		return nil
	}
	l, err := m.Lock()
	if err != nil {
		return err
	}
	defer l.Release()
	g := gitx.In(wt.Path)
	dirty, err := g.Run("status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return err
	}
	if dirty != "" {
		return &DirtyError{Path: wt.Path, Err: errs.New(errs.Git, "%s is checked out in %s with uncommitted changes:\n%s", m.Branch, wt.Path, indent(dirty)).
			WithFix("commit or stash them (git -C %s stash), then run the command again", wt.Path)}
	}
	head, err := g.Run("rev-parse", "HEAD")
	if err != nil {
		return err
	}
	if head != old {
		return errs.New(errs.Git, "%s moved from %s to %s meanwhile", m.Branch, gitx.Short(old), gitx.Short(head)).
			WithFix("run the command again")
	}
	if err := m.intoOwnPaths(wt.Path, old, new); err != nil {
		return err
	}
	if _, err := g.Run("merge", "--ff-only", "-q", new); err != nil {
		var ge *gitx.Error
		if errors.As(err, &ge) && strings.Contains(ge.Stderr, "untracked working tree files would be") {
			// A file of the user's, untracked, where the new main has one:
			// git refuses and changes nothing, and burl leaves the file be.
			return &DirtyError{Path: wt.Path, Untracked: true, Err: errs.New(errs.Git, "%s is checked out in %s, and an untracked file there is in the way of the fast-forward:\n%s", m.Branch, wt.Path, indent(untrackedInWay(ge.Stderr))).
				WithFix("move or commit those files (git -C %s status), then run the command again", wt.Path)}
		}
		return errs.Wrap(err, errs.Git, fmt.Sprintf("Cannot fast-forward %s in %s", m.Branch, wt.Path))
	}
	return nil
}

// untrackedInWay picks the file names out of git's "would be overwritten"
// message (tab-indented lines).
func untrackedInWay(stderr string) string {
	var files []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "\t") {
			files = append(files, strings.TrimSpace(l))
		}
	}
	if len(files) == 0 {
		return strings.TrimSpace(stderr)
	}
	return strings.Join(files, "\n")
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// DirtyError is Advance refusing to fast-forward a branch checked out
// with uncommitted changes (exit 3).
type DirtyError struct {
	Path string // the worktree
	// Untracked: the tree is clean, but untracked files are where the new
	// main has files.
	Untracked bool
	Err       error
}

func (d *DirtyError) why() string {
	if d.Untracked {
		return "untracked files where the new commits add files"
	}
	return "uncommitted changes"
}

func (d *DirtyError) Error() string      { return d.Err.Error() }
func (d *DirtyError) Unwrap() error      { return d.Err }
func (d *DirtyError) ErrKind() errs.Kind { return errs.Git }

// Conflict is a rebase that stopped on conflicts (and was aborted).
type Conflict struct {
	Files []string
	Err   error
}

func (c *Conflict) Error() string {
	return fmt.Sprintf("rebase conflict in %s", strings.Join(c.Files, ", "))
}

// ErrKind: a conflict is a git failure (exit 3).
func (c *Conflict) ErrKind() errs.Kind { return errs.Git }

// Rebase rebases the branch checked out in the task worktree onto base. On
// a conflict it aborts, so nothing is left in progress, and returns
// *Conflict naming the files.
func Rebase(wt gitx.Git, base string) error {
	return rebase(wt, base)
}

// RebaseOnto is Rebase of only the commits after upstream (git rebase
// --onto onto upstream): a stacked task's own commits, its parent's left
// behind (DESIGN §26).
func RebaseOnto(wt gitx.Git, onto, upstream string) error {
	return rebase(wt, "--onto", onto, upstream)
}

func rebase(wt gitx.Git, args ...string) error {
	_, err := wt.Run(append([]string{"-c", "rebase.autoStash=false", "-c", "rebase.updateRefs=false", "rebase", "-q", "--no-autosquash"}, args...)...)
	if err == nil {
		return nil
	}
	files, _ := wt.Run("diff", "--name-only", "--diff-filter=U")
	_, aerr := wt.Run("rebase", "--abort")
	c := &Conflict{Err: err}
	for _, f := range strings.Split(files, "\n") {
		if f != "" {
			c.Files = append(c.Files, f)
		}
	}
	if len(c.Files) == 0 {
		if aerr == nil {
			c.Files = []string{"(unknown: " + strings.TrimSpace(err.Error()) + ")"}
		} else {
			return errs.Wrap(err, errs.Git, "git rebase failed")
		}
	}
	return c
}

// Drift counts the commits main gained between from and to.
func Drift(g gitx.Git, from, to string) int {
	if from == to {
		return 0
	}
	out, err := g.Run("rev-list", "--count", from+".."+to)
	if err != nil {
		return 0
	}
	n := 0
	fmt.Sscanf(out, "%d", &n)
	return n
}

// Rewind undoes an Advance of ours (new back to old) when a later step of
// the same approve fails, so main is left exactly as it was.
func (m Main) Rewind(new, old string) error {
	wt, err := m.checkedOut()
	if err != nil {
		return err
	}
	if wt == nil {
		_, err := m.Git.Run("update-ref", "-m", "burl: undo fast-forward", "refs/heads/"+m.Branch, old, new)
		return err
	}
	g := gitx.In(wt.Path)
	if head, err := g.Run("rev-parse", "HEAD"); err != nil || head != new {
		return fmt.Errorf("%s moved since burl advanced it; left at %s", m.Branch, head)
	}
	_, err = g.Run("reset", "-q", "--keep", old)
	return err
}

// WorkInMain reports whether the task commits base..tip are all in main:
// tip is an ancestor of main, each commit has a patch-equivalent one in
// main (approve rebases before it fast-forwards), or, for more than one
// commit, main holds their change whole (merge_strategy squash made them
// one commit): merging tip into main would leave main's tree as it is.
// This is how an approve interrupted after main moved is recognised, even
// once its branch is gone. A tip whose commit is not in this clone proves
// nothing: false.
func WorkInMain(g gitx.Git, main, base, tip string) (bool, error) {
	if base == "" || tip == "" || base == tip {
		return false, nil
	}
	if !g.Has(tip + "^{commit}") {
		return false, nil
	}
	if !g.Has(base + "^{commit}") {
		return false, nil
	}
	// Walks through cat-file answer where both histories since base are
	// short (DESIGN §28): tip is in main when it is on main's own
	// commits; a main still at base holds none of tip's work.
	if own, ok := g.Since(base, tip); ok && len(own) > 0 {
		if theirs, ok := g.Since(base, main); ok {
			if slices.Contains(theirs, own[0]) {
				return true, nil
			}
			if len(theirs) == 0 {
				return false, nil
			}
		}
	}
	if in, err := g.Test("merge-base", "--is-ancestor", tip, main); err != nil || in {
		return in, err
	}
	out, err := g.Run("cherry", main, tip, base)
	if err != nil || out == "" {
		return false, err
	}
	lines := strings.Split(out, "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "+") {
			if len(lines) == 1 {
				return false, nil
			}
			return squashedInto(g, main, base, tip)
		}
	}
	return true, nil
}

// squashedInto reports whether main holds the whole change base..tip (a
// change that is not empty): git merge-tree of main and tip writes main's
// own tree.
func squashedInto(g gitx.Git, main, base, tip string) (bool, error) {
	trees, err := g.Run("rev-parse", main+"^{tree}", tip+"^{tree}", base+"^{tree}")
	if err != nil {
		return false, err
	}
	t := strings.Fields(trees)
	if len(t) != 3 || t[1] == t[2] {
		return false, nil
	}
	merged, err := g.Run("merge-tree", "--write-tree", "--no-messages", main, tip)
	if err != nil {
		// Exit 1 is a conflict: main does not hold the change as it is.
		return false, nil
	}
	first, _, _ := strings.Cut(merged, "\n")
	return first == t[0], nil
}

// SquashReflog starts the reflog message of approve's squash of a task
// branch (merge_strategy squash), which follows its rebase.
const SquashReflog = "burl: squash"

// RebasedFrom returns the commit branch pointed to before its latest
// update when that update was a finished rebase (or a rebase and approve's
// squash, or a squash alone when main had not moved), and "" otherwise: an
// approve killed after rebasing leaves exactly that, and the branch's
// reflog is the proof that nothing else moved it.
func RebasedFrom(g gitx.Git, branch string) string {
	out, err := g.Run("reflog", "show", "--format=%H %gs", "-n", "3", "refs/heads/"+branch)
	if err != nil {
		return ""
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2 {
		return ""
	}
	finished := func(l string) bool {
		_, subject, _ := strings.Cut(l, " ")
		return strings.HasPrefix(subject, "rebase") && strings.Contains(subject, "(finish)")
	}
	if _, subject, _ := strings.Cut(lines[0], " "); strings.HasPrefix(subject, SquashReflog+" ") {
		if !finished(lines[1]) {
			prev, _, _ := strings.Cut(lines[1], " ")
			return prev
		}
		lines = lines[1:]
		if len(lines) < 2 {
			return ""
		}
	}
	if !finished(lines[0]) {
		return ""
	}
	prev, _, _ := strings.Cut(lines[1], " ")
	return prev
}

// Rebasing reports a rebase stopped in the worktree wt (killed, or halted
// on a conflict): the branch it is rebasing (refs/heads/...) and the
// commit that branch was at when it started. HEAD is detached meanwhile,
// and git refuses to switch branches until it is finished or aborted.
func Rebasing(wt gitx.Git) (headName, origHead string, ok bool) {
	gitdir := workspace.GitDir(wt.Dir)
	for _, name := range []string{"rebase-merge", "rebase-apply"} {
		dir := filepath.Join(gitdir, name)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		name, _ := os.ReadFile(filepath.Join(dir, "head-name"))
		orig, _ := os.ReadFile(filepath.Join(dir, "orig-head"))
		return strings.TrimSpace(string(name)), strings.TrimSpace(string(orig)), true
	}
	return "", "", false
}

// ApproveRebase reports whether a rebase stopped in wt is one an approve
// of branch started from the submitted commit: its head-name is the task
// branch and its orig-head the submitted commit. git writes those files
// one by one after it creates rebase-merge/, and moves the branch only
// when the rebase finishes, so a rebase killed while git was still writing
// them (either file missing or empty) is recognised by the branch itself
// still being at submitted. Any other stopped rebase is a human's.
func ApproveRebase(wt gitx.Git, branch, submitted string) bool {
	head, orig, ok := Rebasing(wt)
	if !ok || submitted == "" || (head != "" && head != "refs/heads/"+branch) || (orig != "" && orig != submitted) {
		return false
	}
	if head != "" && orig != "" {
		return true
	}
	tip, err := wt.Run("rev-parse", "-q", "--verify", "refs/heads/"+branch)
	return err == nil && tip == submitted
}

// AbortApproveRebase aborts a rebase that an approve of branch, killed
// half way, left in its worktree (ApproveRebase). Aborting puts the branch
// and HEAD back at submitted and loses nothing (approve starts from a clean
// worktree). Any other stopped rebase is left alone (false).
func AbortApproveRebase(wt gitx.Git, branch, submitted string) (bool, error) {
	if !ApproveRebase(wt, branch, submitted) {
		return false, nil
	}
	if _, err := wt.Run("rebase", "--abort"); err == nil {
		return true, nil
	}
	// git cannot abort a rebase whose state files it never finished
	// writing (it says so and suggests removing rebase-merge/): do what
	// the abort would have, from what is known — the branch is still at
	// submitted, so HEAD goes back to it and the worktree to its tree.
	gitdir := workspace.GitDir(wt.Dir)
	for _, name := range []string{"rebase-merge", "rebase-apply"} {
		if err := os.RemoveAll(filepath.Join(gitdir, name)); err != nil {
			return false, errs.Wrap(err, errs.Git, "removing the rebase state an interrupted approve left")
		}
	}
	if _, err := wt.Run("symbolic-ref", "HEAD", "refs/heads/"+branch); err != nil {
		return false, errs.Wrap(err, errs.Git, "aborting the rebase an interrupted approve left")
	}
	if _, err := wt.Run("reset", "-q", "--hard", submitted); err != nil {
		return false, errs.Wrap(err, errs.Git, "aborting the rebase an interrupted approve left")
	}
	return true, nil
}
