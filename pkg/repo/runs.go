package repo

import (
	"os"
	"path/filepath"

	"github.com/burl-dev/burl/pkg/osx"
)

// Where watch keeps its runs (DESIGN §19): each run of an agent gets a
// directory of its own under the shared git dir, holding the disposable
// git dir the agent commits into and the outputs it may write.
const (
	runsDirName   = "runs"
	burlDirName   = "burl"
	runGitDirName = "git"
)

// BurlDir is burl's own folder in the shared git dir.
func (r *Repo) BurlDir() string { return filepath.Join(r.CommonDir, burlDirName) }

// RunsDir holds one directory per agent run.
func (r *Repo) RunsDir() string { return filepath.Join(r.BurlDir(), runsDirName) }

// ActiveRunFile is empty everywhere but inside a sandboxed run, where the
// run's description is mounted over it (read-only): a process that finds
// it non-empty is an agent's, whatever its environment or ancestry say.
func (r *Repo) ActiveRunFile() string { return filepath.Join(r.BurlDir(), "active-run") }

// RunGitDir is the git dir of the run directory dir.
func RunGitDir(dir string) string { return filepath.Join(dir, runGitDirName) }

// SharedOfRun maps a run's git dir (<shared>/burl/runs/<run>/git) to the
// shared git dir it belongs to.
func SharedOfRun(gitDir string) (string, bool) {
	runs := filepath.Dir(filepath.Dir(gitDir))
	if filepath.Base(gitDir) != runGitDirName || filepath.Base(runs) != runsDirName || filepath.Base(filepath.Dir(runs)) != burlDirName {
		return "", false
	}
	shared := filepath.Dir(filepath.Dir(runs))
	if st, err := os.Stat(filepath.Join(shared, "objects")); err != nil || !st.IsDir() {
		return "", false
	}
	return shared, true
}

// InWatchRun reports whether this process is an agent's, or one of its
// descendants (DESIGN §15, §19): inside a sandboxed run the active-run
// file says so (mounted there by watch, not writable by the run); without
// a sandbox the process descends from git-burl-watch. Neither can be
// unset like an environment variable.
func (r *Repo) InWatchRun() bool {
	if st, err := os.Stat(r.ActiveRunFile()); err == nil && st.Size() > 0 {
		return true
	}
	return osx.InWatchRun()
}
