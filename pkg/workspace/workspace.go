// Package workspace is the git side of a task: its branch and its worktree
// under .worktrees/. It creates them with rollback (a failed worktree add
// never leaves a branch behind) and finds them again on another machine.
package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/faults"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/task"
)

// Worktree is one entry of `git worktree list --porcelain`.
type Worktree struct {
	Path   string
	Branch string // short name, "" when detached
	Head   string
}

// List returns every worktree git knows of.
func List(g gitx.Git) ([]Worktree, error) {
	out, err := g.Run("worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var wts []Worktree
	for _, block := range strings.Split(out, "\n\n") {
		var wt Worktree
		for _, l := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(l, "worktree "):
				wt.Path = filepath.Clean(strings.TrimPrefix(l, "worktree "))
			case strings.HasPrefix(l, "branch "):
				wt.Branch = strings.TrimPrefix(l, "branch refs/heads/")
			case strings.HasPrefix(l, "HEAD "):
				wt.Head = strings.TrimPrefix(l, "HEAD ")
			}
		}
		if wt.Path != "" {
			wts = append(wts, wt)
		}
	}
	return wts, nil
}

// Find returns the worktree at path, if git has it registered.
func Find(g gitx.Git, path string) (*Worktree, error) {
	wts, err := List(g)
	if err != nil {
		return nil, err
	}
	for _, wt := range wts {
		if wt.Path == filepath.Clean(path) {
			return &wt, nil
		}
	}
	return nil, nil
}

// CheckedOutAt returns the worktree where branch is checked out, if any.
func CheckedOutAt(g gitx.Git, branch string) (*Worktree, error) {
	wts, err := List(g)
	if err != nil {
		return nil, err
	}
	for _, wt := range wts {
		if wt.Branch == branch {
			return &wt, nil
		}
	}
	return nil, nil
}

// BranchExists reports whether refs/heads/<name> exists.
func BranchExists(g gitx.Git, name string) (bool, error) {
	return g.Test("show-ref", "--verify", "-q", "refs/heads/"+name)
}

// Tips returns the commit each of the named local branches points at, ""
// for one that does not exist: one request to the process's cat-file for
// what would otherwise be a git process (DESIGN §28).
func Tips(g gitx.Git, names ...string) (map[string]string, error) {
	refs := make([]string, len(names))
	for i, n := range names {
		refs[i] = "refs/heads/" + n
	}
	tips := make(map[string]string, len(names))
	err := g.Cat(refs, false, func(i int, oid, _ string, _ []byte) error {
		tips[names[i]] = oid
		return nil
	})
	if err != nil {
		return nil, err
	}
	return tips, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

// Ensure makes path a worktree of branch. The branch is created at base
// when it does not exist (base "" means it must exist). It reports whether
// it created the branch and the worktree, and undoes its own work on
// failure: a failed `git worktree add` leaves no new branch.
func Ensure(g gitx.Git, path, branch, base string) (createdBranch, createdWorktree bool, err error) {
	return ensure(g, path, branch, base, nil)
}

// EnsureKnown is Ensure for a caller that has just asked BranchExists, so
// the question is not put to git twice.
func EnsureKnown(g gitx.Git, path, branch, base string, branchExists bool) (createdBranch, createdWorktree bool, err error) {
	return ensure(g, path, branch, base, &branchExists)
}

func ensure(g gitx.Git, path, branch, base string, known *bool) (createdBranch, createdWorktree bool, err error) {
	if err := CheckPlace(g.Dir, path); err != nil {
		return false, false, err
	}
	if known != nil && !*known && base != "" && !exists(path) {
		return createBoth(g, path, branch, base)
	}
	return ensureCareful(g, path, branch, base, known)
}

// ensureCareful is ensure for any state of branch and path.
func ensureCareful(g gitx.Git, path, branch, base string, known *bool) (createdBranch, createdWorktree bool, err error) {
	// One listing answers both questions below (is path a worktree, is
	// branch checked out elsewhere): each git process costs milliseconds.
	wts, err := List(g)
	if err != nil {
		return false, false, err
	}
	var wt, on *Worktree
	for i := range wts {
		if wts[i].Path == filepath.Clean(path) {
			wt = &wts[i]
		}
		if wts[i].Branch == branch && on == nil {
			on = &wts[i]
		}
	}
	if wt != nil && exists(path) && !exists(filepath.Join(path, ".git")) {
		// git registered the worktree and was killed before it wrote the
		// worktree's .git file: an empty directory is git's to fill again
		// (add -f below); one with files in it is not burl's to empty.
		if err := os.Remove(path); err != nil {
			return false, false, errs.New(errs.Git, "%s is registered as a worktree but has no .git file (a git worktree add was killed) and is not empty", path).
				WithFix("look inside, move away what you need, remove the directory and run git worktree prune, then run the command again")
		}
	}
	if wt != nil && exists(path) {
		if wt.Branch != branch {
			return false, false, errs.New(errs.User, "%s is a worktree of %q, not of the task branch %s", path, wt.Branch, branch).
				WithFix("git -C %s switch %s (or remove that worktree)", path, branch)
		}
		if Partial(path) {
			return false, false, Rebuild(g, path)
		}
		return false, false, nil
	}
	var have bool
	if known != nil {
		have = *known
	} else if have, err = BranchExists(g, branch); err != nil {
		return false, false, err
	}
	if !have {
		if base == "" {
			return false, false, errs.New(errs.User, "branch %s does not exist here", branch).
				WithFix("git fetch, or git burl sync --pull, to get it from the remote")
		}
		if _, err := g.Run("branch", "--no-track", branch, base); err != nil {
			return false, false, err
		}
		createdBranch = true
		faults.CrashPoint("claim", "branch")
	}
	if on != nil && exists(on.Path) {
		return createdBranch, false, errs.New(errs.User, "branch %s is already checked out at %s", branch, on.Path).
			WithFix("git -C %s switch --detach, then run the command again", on.Path)
	}
	args := []string{"worktree", "add", "-q"}
	if wt != nil || exists(path) {
		// Registered but deleted by hand, or an empty leftover directory.
		args = append(args, "-f")
	}
	err = faults.Fail("worktree-add")
	if err == nil {
		_, err = g.Run(append(args, path, branch)...)
	}
	if err != nil {
		if createdBranch {
			if _, derr := g.Run("branch", "-D", branch); derr != nil {
				err = errors.Join(err, derr)
			}
		}
		return false, false, errs.Wrap(err, errs.Git, "git worktree add "+path+" failed")
	}
	return createdBranch, true, nil
}

// createBoth is ensure for a branch that does not exist yet and a path
// that does not exist, the common claim, in one git process. A new branch
// cannot be checked out anywhere, so -f can only override git's refusal of
// a path that is registered but was deleted by hand, which ensure
// overrides too. When that one try fails (often only because another git
// was adding a worktree at that moment), the careful path takes over from
// whatever it left: git creates the branch before the worktree.
func createBoth(g gitx.Git, path, branch, base string) (createdBranch, createdWorktree bool, err error) {
	err = faults.Fail("worktree-add")
	if err == nil {
		_, err = g.RunOnce("worktree", "add", "-q", "-f", "-b", branch, path, base)
	}
	if err == nil {
		faults.CrashPoint("claim", "branch")
		return true, true, nil
	}
	ours, err := BranchExists(g, branch)
	if err != nil {
		return false, false, err
	}
	createdBranch, createdWorktree, err = ensureCareful(g, path, branch, base, &ours)
	if ours {
		if err != nil {
			if _, derr := g.Run("branch", "-D", branch); derr != nil {
				err = errors.Join(err, derr)
			}
			return false, false, err
		}
		createdBranch = true
	}
	return createdBranch, createdWorktree, err
}

// Remove deletes a task worktree (refusing a dirty one unless force).
func Remove(g gitx.Git, path string, force bool) error {
	if err := CheckPlace(g.Dir, path); err != nil {
		return err
	}
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	}
	_, err := g.Run(append(args, path)...)
	return err
}

// FetchBranch creates the local branch from remote when only the remote has
// it (another machine pushed it). It reports whether the branch exists
// locally afterwards; an unreachable remote is not an error.
func FetchBranch(g gitx.Git, remote, branch string) (bool, error) {
	if ok, err := BranchExists(g, branch); err != nil || ok {
		return ok, err
	}
	tracking := gitx.Tracking(remote, branch)
	_ = g.FetchTracking(remote, branch)
	if ok, _ := g.Test("show-ref", "--verify", "-q", tracking); !ok {
		return false, nil
	}
	if _, err := g.Run("branch", "-q", "--track", branch, remote+"/"+branch); err != nil {
		return false, err
	}
	return true, nil
}

// Restore makes a task's worktree exist again from its branch, on another
// machine or after its directory was lost. The branch comes from remote
// when only the remote has it. The worktree stays at cur (relative to root)
// when git still has cur registered for the branch, and goes to
// <worktreesDir>/<branch> otherwise. It returns the worktree's path relative
// to root, slash-separated as task files record it, and whether it created
// the worktree.
func Restore(g gitx.Git, root, worktreesDir, remote, branch, cur string) (string, bool, error) {
	if _, err := FetchBranch(g, remote, branch); err != nil {
		return "", false, err
	}
	path := filepath.Join(worktreesDir, branch)
	if cur != "" {
		abs := filepath.Join(root, filepath.FromSlash(cur))
		if wt, _ := Find(g, abs); wt != nil && wt.Branch == branch {
			path = abs
		}
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return "", false, err
	}
	_, created, err := Ensure(g, path, branch, "")
	return filepath.ToSlash(rel), created, err
}

// Partial reports a worktree that a killed `git worktree add` left half
// made: registered, but without the index git writes when its checkout
// completes. Handed out, it shows every file of the branch deleted and
// staged, and a worker's next commit would record those deletions.
func Partial(path string) bool {
	gitdir, ok := linkedGitDir(path)
	if !ok {
		return false // not a linked worktree (or gone: a missing worktree)
	}
	if !exists(filepath.Join(gitdir, "index")) || !exists(filepath.Join(gitdir, "HEAD")) {
		return true
	}
	// git marks a worktree it is creating as locked "initializing" and
	// unlocks it when done.
	locked, err := os.ReadFile(filepath.Join(gitdir, "locked"))
	return err == nil && strings.HasPrefix(string(locked), "initializing")
}

// Rebuild completes a partial worktree's checkout without overwriting a
// byte: the index is read from HEAD, and only the files that are missing
// are written (a file the killed checkout left half written shows as
// modified, for a human to judge, rather than being replaced).
func Rebuild(g gitx.Git, path string) error {
	wg := gitx.In(path)
	if gitdir, ok := linkedGitDir(path); ok {
		lockedFile := filepath.Join(gitdir, "locked")
		if locked, err := os.ReadFile(lockedFile); err == nil && strings.HasPrefix(string(locked), "initializing") {
			if err := os.Remove(lockedFile); err != nil {
				return err
			}
		}
	}
	if _, err := wg.Run("read-tree", "HEAD"); err != nil {
		return errs.Wrap(err, errs.Git, "rebuilding the half-made worktree "+path)
	}
	if _, err := wg.Run("checkout-index", "-a", "-q"); err != nil {
		return errs.Wrap(err, errs.Git, "rebuilding the half-made worktree "+path)
	}
	return nil
}

// linkedGitDir is the git directory of the linked worktree at path, read
// from its .git file (no git process: hooks and submit ask on every run).
func linkedGitDir(path string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(path, ".git"))
	if err != nil {
		return "", false
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return "", false
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(path, gitdir)
	}
	return gitdir, true
}

// GitDir is the git directory of the worktree at path: a linked
// worktree's, or path/.git for a main worktree.
func GitDir(path string) string {
	if d, ok := linkedGitDir(path); ok {
		return d
	}
	return filepath.Join(path, ".git")
}

// CheckPlace refuses a task worktree path that is not strictly inside
// root's worktree folder, or that reaches it through a symbolic link: the
// path comes from a task file on the shared workflow branch, and git would
// check a branch out (and run its hooks) wherever it points.
func CheckPlace(root, path string) error {
	base := filepath.Join(root, task.WorktreeRoot)
	rel, err := filepath.Rel(base, filepath.Clean(path))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return errs.New(errs.User, "worktree %s is not inside %s", path, base).
			WithFix("fix the worktree field of the task file (see burl-task(5))")
	}
	// The worktree folder itself is the user's own (a link to another
	// disk is theirs to make); below it, task data decides the names.
	p := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Mode()&os.ModeSymlink != 0 {
			return errs.New(errs.User, "worktree %s would go through the symbolic link %s; burl never places a worktree through a link", path, p).
				WithFix("remove the link %s, or fix the worktree field of the task file", p)
		}
	}
	return nil
}
