package workflow

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/lock"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/setup"
)

// InitOptions are init's choices.
type InitOptions = setup.InitOptions

// InitResult says what init did.
type InitResult = setup.InitResult

// initWorkflow is the workflow, for what init sets up (package setup).
func (w *Workflow) initWorkflow() *setup.Workflow {
	return &setup.Workflow{Repo: w.Repo, Layout: w.layout(), Git: w.gitWT(), Read: w.Read}
}

// initLock is the lock, in the git directory, that init holds while it
// creates or attaches the workflow branch and worktree.
const initLock = "burl-init"

// Init creates or attaches the workflow branch and worktree and writes the
// scaffolding that is missing. It is idempotent: running it again repairs
// what is missing and changes nothing else.
func Init(r *repo.Repo, opts InitOptions) (*InitResult, *Workflow, error) {
	// Refuse bad flags before touching anything: written into config.yaml
	// they would make every later command fail on the config.
	if v := opts.MainBranch; v != "" && !gitx.ValidBranch(v) {
		return nil, nil, errs.New(errs.User, "--main-branch %q is not a branch or remote name", v).
			WithFix("git burl init --main-branch NAME (a short branch name: letters, digits, . _ / -; no refs/ prefix, no .., not starting with -)")
	}
	for flag, v := range map[string]string{"--remote": opts.Remote} {
		if v != "" && !config.ValidName(v) {
			return nil, nil, errs.New(errs.User, "%s %q is not a branch or remote name", flag, v).
				WithFix("git burl init %s NAME (letters, digits, . _ / -; no .., not starting with -)", flag)
		}
	}
	g := r.Git
	if ok, err := g.Test("rev-parse", "--verify", "-q", "HEAD^{commit}"); err != nil || !ok {
		return nil, nil, errs.New(errs.User, "%s has no commits yet; burl branches task work from your main branch", r.Root).
			WithFix(`commit once first, e.g. git commit --allow-empty -m "initial commit"`)
	}
	res := &InitResult{Worktree: r.Rel(r.Worktree), Branch: r.Branch}
	remote := opts.Remote
	if remote == "" {
		remote = "origin"
	}
	w := New(r)
	// The workflow's own locks directory does not exist before attach:
	// concurrent inits queue on a lock in the git directory instead, and
	// the later ones find the branch and worktree the first one made.
	ld := lock.Dir{Path: r.CommonDir, Rel: r.Rel, StaleAfter: 2 * time.Hour}
	il, err := ld.AcquireWait(initLock, w.lockInfo("init"), workflowLockWait)
	if errs.KindOf(err) == errs.Lock {
		// Not one of the workflow's locks: git burl lock cannot clear it.
		p := filepath.Join(r.CommonDir, initLock+".lock")
		why := "another git burl init is running"
		if st, serr := ld.Stat(initLock); serr == nil {
			why += " (" + st.Describe() + ")"
		}
		return nil, nil, errs.New(errs.Lock, "%s\nLock: %s", why, r.Rel(p)).
			WithFix("wait for it; if no git burl init is running, remove %s and run git burl init again", p)
	}
	if err != nil {
		return nil, nil, err
	}
	defer il.Release()
	how, err := setup.Attach(r, remote)
	if err != nil {
		return nil, nil, err
	}
	res.How = how
	// The workflow worktree holds a file per task ever done: a split index
	// (version 4, paths prefix-compressed) makes each transition write the
	// few entries it changed instead of the whole index.
	// A sparse one (sparse.go) is small and cannot be split.
	if w.readCone() == nil {
		if _, err := gitx.In(r.Worktree).Run("update-index", "--split-index", "--index-version", "4"); err != nil {
			return nil, nil, err
		}
	}
	if c, err := config.Load(filepath.Join(w.Dir, ConfigName)); err == nil {
		w.Config = c
	}
	if err := os.MkdirAll(w.Locks.Path, 0o755); err != nil {
		return nil, nil, err
	}
	l, err := w.LockWorkflow("init")
	if err != nil {
		return nil, nil, err
	}
	defer l.Release()
	created, existing, err := setup.Scaffold(w.initWorkflow(), opts, remote, res)
	if err != nil {
		return nil, nil, err
	}
	res.Created = created
	for _, b := range []Bucket{Ready, Doing, QA, Blocked} {
		if n, err := w.Count(b); err == nil {
			res.Open += n
		}
	}
	// Scaffolding that an interrupted init wrote but never committed would
	// stay untracked for good: this run finds the files and creates
	// nothing, and every later commit stages only its own paths. Commit it
	// now; files a user committed or edited are left alone.
	if res.Uncommitted, err = setup.Untracked(w.initWorkflow(), existing); err != nil {
		return nil, nil, err
	}
	for _, u := range res.Uncommitted {
		fmt.Fprintf(w.Stderr, "burl: warning: committing %s, left uncommitted by an interrupted init\n", u)
	}
	if err := os.MkdirAll(r.WorktreesDir(), 0o755); err != nil {
		return nil, nil, err
	}
	if err := setup.Exclude(r); err != nil {
		return nil, nil, err
	}
	migrated, n, err := setup.MigrateEvents(w.initWorkflow())
	if err != nil {
		return nil, nil, err
	}
	res.Migrated = n
	moved, nd, err := setup.MigrateDone(w.initWorkflow())
	if err != nil {
		return nil, nil, err
	}
	res.MigratedDone = nd
	migrated = append(migrated, moved...)
	if len(created)+len(res.Uncommitted)+len(migrated) > 0 {
		var paths []string
		for _, c := range append(append([]string{}, created...), res.Uncommitted...) {
			paths = append(paths, filepath.Join(r.Root, c))
		}
		paths = append(paths, migrated...)
		c, err := config.Load(filepath.Join(w.Dir, ConfigName))
		if err != nil {
			return nil, nil, err
		}
		w.Config = c
		details := map[string]any{"how": how, "files": len(created)}
		// Where git burl verify's default range starts: main's history
		// from here on came through burl (DESIGN §22).
		if sha, err := r.Git.Run("rev-parse", "-q", "--verify", "refs/heads/"+c.MainBranch+"^{commit}"); err == nil && sha != "" {
			details["main_sha"] = sha
		}
		if n > 0 {
			details["migrated_events"] = n
		}
		if nd > 0 {
			details["migrated_done"] = nd
		}
		sha, err := w.Event("init", "", details, "init", paths...)
		if err != nil {
			return nil, nil, err
		}
		res.Commit = sha
	}
	if err := w.applyCone(DoneShard(time.Now())); err != nil {
		fmt.Fprintf(w.Stderr, "burl: warning: cannot make the workflow worktree sparse: %v\n", err)
	}
	return res, w, nil
}
