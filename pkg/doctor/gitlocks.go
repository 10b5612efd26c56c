package doctor

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/osx"
)

// gitLockGrace: git holds its lock files for milliseconds, except while an
// editor is open on a commit message; where the OS cannot list processes
// only a lock this old is called stale.
const gitLockGrace = 10 * time.Minute

// gitLocks finds lock files git itself leaves when it is killed (a kill
// -9 during burl's own `git commit` leaves the workflow worktree's
// index.lock): every later transition then waits for git and fails.
// Such a lock is stale when no git process runs in the repository.
func (c *checker) gitLocks() {
	common := c.w.Repo.CommonDir
	var files []string
	for _, name := range []string{"index.lock", "HEAD.lock", "packed-refs.lock", "config.lock", "shallow.lock"} {
		files = append(files, filepath.Join(common, name))
	}
	if wts, err := os.ReadDir(filepath.Join(common, "worktrees")); err == nil {
		for _, d := range wts {
			for _, name := range []string{"index.lock", "HEAD.lock"} {
				files = append(files, filepath.Join(common, "worktrees", d.Name(), name))
			}
		}
	}
	_ = filepath.WalkDir(filepath.Join(common, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lock") {
			files = append(files, p)
		}
		return nil
	})
	var found []string
	var ages []time.Duration
	for _, p := range files {
		if st, err := os.Lstat(p); err == nil {
			found = append(found, p)
			ages = append(ages, time.Since(st.ModTime()))
		}
	}
	if len(found) == 0 {
		return
	}
	running, known := osx.GitProcessesIn([]string{c.w.Repo.Root, common})
	for i, p := range found {
		f := Finding{Kind: StaleGitLock, Path: c.w.Rel(p), gitLock: p}
		switch {
		case known && len(running) > 0:
			continue // a git is at work here: its lock is live
		case !known && ages[i] < gitLockGrace:
			continue
		}
		f.Repairable = true
		f.Message = fmt.Sprintf("git lock file %s is %s old and no git process is running in this repository: a git command was killed while holding it, and every transition touching it fails", f.Path, humanAge(ages[i]))
		f.Fix = fmt.Sprintf("%s removes it (or: rm %s)", repairCmd, p)
		c.add(f)
	}
}

func humanAge(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm", int(d.Minutes()))
}
