package monitor

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/workflow"
)

// pollEvery is how often the live board stats the files a transition
// changes. A stat is a syscall, not a git process: idle, the board costs
// a few dozen syscalls a second and redraws nothing.
const pollEvery = 250 * time.Millisecond

// refreshEvery redraws an idle board so ages and lease expiries move on.
const refreshEvery = 30 * time.Second

// watched are the files whose change means the workflow changed: the
// workflow branch's ref, loose and packed (every transition commits to
// it, here or fetched), main's ref (conflict predictions), the workflow
// worktree's HEAD and index, and the locks directory (locks come and go
// without a commit). Directories and ref files are replaced by rename,
// so each is stat-ed afresh every time, never held open.
func watched(w *workflow.Workflow) []string {
	common := w.Repo.CommonDir
	fs := []string{
		filepath.Join(common, "refs", "heads", filepath.FromSlash(w.Repo.Branch)),
		filepath.Join(common, "refs", "heads", filepath.FromSlash(w.Config.MainBranch)),
		filepath.Join(common, "packed-refs"),
		w.Locks.Path,
	}
	if gd := worktreeGitDir(w.Repo.Worktree); gd != "" {
		fs = append(fs, filepath.Join(gd, "HEAD"), filepath.Join(gd, "index"))
	}
	return fs
}

// worktreeGitDir reads the "gitdir:" line of a linked worktree's .git file.
func worktreeGitDir(wt string) string {
	data, err := os.ReadFile(filepath.Join(wt, ".git"))
	if err != nil {
		return ""
	}
	gd, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(wt, gd)
	}
	return gd
}

type stamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

// signature is the state of every watched file ("absent" included).
func signature(files []string) []stamp {
	out := make([]stamp, len(files))
	for i, f := range files {
		if st, err := os.Stat(f); err == nil {
			out[i] = stamp{st.Size(), st.ModTime(), inode(st)}
		}
	}
	return out
}

func sameSig(a, b []stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].size != b[i].size || !a[i].mtime.Equal(b[i].mtime) || a[i].ino != b[i].ino {
			return false
		}
	}
	return true
}

// Watcher reports changes of the watched files, and of the logs of the
// runs the last board showed, on C (one pending signal at most).
type Watcher struct {
	C    chan struct{}
	base []string
	logs chan []string
	stop chan struct{}
}

// NewWatcher starts watching w's files.
func NewWatcher(w *workflow.Workflow) *Watcher {
	x := &Watcher{C: make(chan struct{}, 1), base: watched(w), logs: make(chan []string, 1), stop: make(chan struct{})}
	go x.loop()
	return x
}

// Logs sets the run logs to watch as well (a running agent's last line).
func (x *Watcher) Logs(paths []string) {
	select {
	case <-x.logs:
	default:
	}
	x.logs <- paths
}

// Stop ends the watching.
func (x *Watcher) Stop() { close(x.stop) }

func (x *Watcher) loop() {
	files := x.base
	last := signature(files)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	refreshed := time.Now()
	for {
		select {
		case <-x.stop:
			return
		case logs := <-x.logs:
			files = append(append([]string{}, x.base...), logs...)
			last = signature(files)
			continue
		case <-tick.C:
		}
		sig := signature(files)
		if sameSig(sig, last) && time.Since(refreshed) < refreshEvery {
			continue
		}
		last, refreshed = sig, time.Now()
		select {
		case x.C <- struct{}{}:
		default:
		}
	}
}
