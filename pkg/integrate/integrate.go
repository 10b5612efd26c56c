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
	"strings"

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
}

// For is the workflow's main branch, as its config names it.
func For(w *workflow.Workflow) Main {
	return Main{Git: w.Repo.Git, Branch: w.Config.MainBranch, Remote: w.Config.Remote, Repo: w.Repo, Lock: w.LockFastForward, Warn: w.Stderr}
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
	if err := m.Git.FetchTracking(m.Remote, m.Branch); err != nil {
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
	// Concurrent claims all find main behind and race to fast-forward it;
	// the losers find main moved (usually by that same fast-forward) and
	// judge again from where it is now, rather than fail.
	for attempt := 1; ; attempt++ {
		base, err := m.settle(local, remote)
		if err == nil {
			return base, nil
		}
		now := m.rev(localRef)
		if now == local || attempt == 3 {
			return "", err
		}
		local = now
	}
}

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
				fmt.Fprintf(m.Warn, "burl: warning: %s is checked out in %s with uncommitted changes, so it stays at %s; starting from %s/%s (%s)\n",
					m.Branch, dirty.Path, gitx.Short(local), m.Remote, m.Branch, gitx.Short(remote))
			}
		}
		return remote, nil
	}
	if ahead, err := m.Git.Test("merge-base", "--is-ancestor", remote, local); err != nil {
		return "", err
	} else if ahead {
		return local, nil
	}
	return "", errs.New(errs.Git, "local %s (%s) and %s/%s (%s) have diverged", m.Branch, gitx.Short(local), m.Remote, m.Branch, gitx.Short(remote)).
		WithFix("reconcile them by hand (e.g. git rebase %s/%s on %s), then run the command again", m.Remote, m.Branch, m.Branch)
}

// Advance moves main from old to new, fast-forward only, never switching a
// worktree: with merge --ff-only where main is checked out and clean, with
// a compare-and-swap update-ref where it is not checked out; where it is
// checked out and dirty it fails (exit 3) and changes nothing.
func (m Main) Advance(old, new string) error {
	wt, err := workspace.CheckedOutAt(m.Git, m.Branch)
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
	if _, err := g.Run("merge", "--ff-only", "-q", new); err != nil {
		return errs.Wrap(err, errs.Git, fmt.Sprintf("Cannot fast-forward %s in %s", m.Branch, wt.Path))
	}
	return nil
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
	Err  error
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
	_, err := wt.Run("-c", "rebase.autoStash=false", "-c", "rebase.updateRefs=false", "rebase", "-q", "--no-autosquash", base)
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

// Rebasing reports whether a rebase is in progress in the worktree wt.
func Rebasing(wt gitx.Git) bool {
	for _, d := range []string{"rebase-merge", "rebase-apply"} {
		p, err := wt.Run("rev-parse", "--path-format=absolute", "--git-path", d)
		if err != nil {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// AbortLeftRebase aborts a rebase a killed process left in wt, which puts
// the branch back where it was before that rebase; it reports whether
// there was one.
func AbortLeftRebase(wt gitx.Git) (bool, error) {
	if _, err := os.Stat(wt.Dir); err != nil || !Rebasing(wt) {
		return false, nil
	}
	if _, err := wt.Run("rebase", "--abort"); err != nil {
		return true, errs.Wrap(err, errs.Git, "aborting the rebase left in "+wt.Dir)
	}
	return true, nil
}

// Drift counts the commits main gained between from and to.
func Drift(g gitx.Git, from, to string) int {
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
	wt, err := workspace.CheckedOutAt(m.Git, m.Branch)
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
// tip is an ancestor of main, or each commit has a patch-equivalent one in
// main (approve rebases before it fast-forwards). This is how an approve
// interrupted after main moved is recognised, even once its branch is
// gone. A tip whose commit is not in this clone proves nothing: false.
func WorkInMain(g gitx.Git, main, base, tip string) (bool, error) {
	if base == "" || tip == "" || base == tip {
		return false, nil
	}
	if ok, _ := g.Test("cat-file", "-e", tip+"^{commit}"); !ok {
		return false, nil
	}
	if ok, _ := g.Test("cat-file", "-e", base+"^{commit}"); !ok {
		return false, nil
	}
	if in, err := g.Test("merge-base", "--is-ancestor", tip, main); err != nil || in {
		return in, err
	}
	out, err := g.Run("cherry", main, tip, base)
	if err != nil || out == "" {
		return false, err
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "+") {
			return false, nil
		}
	}
	return true, nil
}

// RebasedFrom returns the commit branch pointed to before its latest
// update when that update was a finished rebase, and "" otherwise: an
// approve killed after rebasing leaves exactly that, and the branch's
// reflog is the proof that nothing else moved it.
func RebasedFrom(g gitx.Git, branch string) string {
	out, err := g.Run("reflog", "show", "--format=%H %gs", "-n", "2", "refs/heads/"+branch)
	if err != nil {
		return ""
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2 {
		return ""
	}
	_, subject, _ := strings.Cut(lines[0], " ")
	if !strings.HasPrefix(subject, "rebase") || !strings.Contains(subject, "(finish)") {
		return ""
	}
	prev, _, _ := strings.Cut(lines[1], " ")
	return prev
}
