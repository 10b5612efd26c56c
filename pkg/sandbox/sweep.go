package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/bwrapbox"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/repo"
)

// sweepPrefix marks a run directory a sweeper has taken (renamed, so that
// two sweepers never work on one run).
const sweepPrefix = ".sweep-"

// Sweep ends the runs that watchers which are gone left behind, on the
// worktree wt ("" for every worktree): what is left of their processes is
// killed (found by the run's PID namespace and the run its mount
// namespace names, never by an environment variable), the commits they
// made are taken in as Receive takes them (when the task branch is still
// where the run found it), the worktree's .git file is put back, and the
// run directory removed. A watcher's own runs, and those of live
// watchers, are left alone. It returns what it did, to be said.
func Sweep(r *repo.Repo, wt string) []string {
	var notes []string
	for _, d := range stale(r) {
		if wt != "" && (d.info == nil || d.info.Worktree != wt) {
			continue
		}
		dir := filepath.Join(r.RunsDir(), d.name)
		mine := filepath.Join(r.RunsDir(), fmt.Sprintf("%s%s-%d", sweepPrefix, d.base, os.Getpid()))
		if os.Rename(dir, mine) != nil {
			continue // taken by another sweeper
		}
		notes = append(notes, sweepOne(r, mine, d.info)...)
		if err := removeAll(mine); err != nil {
			notes = append(notes, fmt.Sprintf("cannot remove %s: %v", mine, err))
		}
	}
	return notes
}

// Stale are the runs whose watcher is gone (what Sweep ends): their task,
// and the worktree they were on.
func Stale(r *repo.Repo) []Info {
	var out []Info
	for _, d := range stale(r) {
		if d.info != nil {
			out = append(out, *d.info)
		} else {
			out = append(out, Info{Run: d.base})
		}
	}
	return out
}

type deadRun struct {
	name, base string
	info       *Info
}

// stale lists the run directories no live process owns.
func stale(r *repo.Repo) []deadRun {
	ents, err := os.ReadDir(r.RunsDir())
	if err != nil {
		return nil
	}
	var out []deadRun
	for _, e := range ents {
		name := e.Name()
		base, owner := runOwner(name)
		switch {
		case owner == 0:
			continue
		case strings.HasPrefix(name, sweepPrefix):
			if osx.ProcessAlive(owner) {
				continue // another sweeper is at it
			}
		case owner == os.Getpid() || !deadWatcher(r, name, owner):
			continue
		}
		info, _ := readRunInfo(filepath.Join(r.RunsDir(), name))
		out = append(out, deadRun{name: name, base: base, info: info})
	}
	return out
}

// runOwner is a run directory's name without a sweeper's marks, and the
// process that owns it: the watcher (<task>-<pid>-<seq>) or the sweeper
// (.sweep-<run>-<pid>).
func runOwner(name string) (base string, pid int) {
	base = name
	if rest, ok := strings.CutPrefix(name, sweepPrefix); ok {
		i := strings.LastIndexByte(rest, '-')
		if i < 0 {
			return name, 0
		}
		p, _ := strconv.Atoi(rest[i+1:])
		return rest[:i], p
	}
	f := strings.Split(name, "-")
	if len(f) < 3 {
		return name, 0
	}
	p, _ := strconv.Atoi(f[len(f)-2])
	return name, p
}

// deadWatcher reports whether the watcher that run.json names is gone:
// not the process that now has its pid (pids are reused, and boots
// forget). A run directory still being made has no run.json yet: its
// owner's pid decides.
func deadWatcher(r *repo.Repo, name string, owner int) bool {
	info, err := readRunInfo(filepath.Join(r.RunsDir(), name))
	if err != nil {
		return !osx.ProcessAlive(owner)
	}
	start, zombie, ok := osx.ProcessStart(info.WatcherPID)
	return !ok || zombie || start != info.WatcherStart || info.Boot != osx.BootID()
}

// readRunInfo reads a run directory's run.json, as a file that is only
// read.
func readRunInfo(dir string) (*Info, error) {
	f, err := osx.OpenInside(dir, runJSON, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var info Info
	if err := json.NewDecoder(io.LimitReader(f, 1<<20)).Decode(&info); err != nil {
		return nil, err
	}
	return &info, nil
}

// sweepOne ends one dead run whose directory is dir.
func sweepOne(r *repo.Repo, dir string, info *Info) []string {
	if info == nil {
		return []string{fmt.Sprintf("removed the unreadable run directory %s", filepath.Base(dir))}
	}
	var notes []string
	if data, err := osx.ReadFileNoFollow(filepath.Join(dir, pidnsTxt)); err == nil {
		if n := killRun(r, strings.TrimSpace(string(data)), info.Run); n > 0 {
			notes = append(notes, fmt.Sprintf("%s: stopped %d process(es) left by run %s", info.Task, n, info.Run))
		}
	}
	// The worktree and its git dir where burl makes them, whatever the
	// file says: nothing outside them is written.
	if !bwrapbox.Within(info.Worktree, r.Root) || filepath.Dir(info.Admin) != filepath.Join(r.CommonDir, "worktrees") || info.Branch == "" {
		return append(notes, fmt.Sprintf("%s: run %s names a worktree or git dir burl does not make; removed as it is", info.Task, info.Run))
	}
	info.GitDir = repo.RunGitDir(dir)
	run := &Run{spec: Spec{Repo: r, Task: info.Task, Worktree: info.Worktree, Branch: info.Branch, Bwrap: info.Sandbox == "bwrap"},
		Info: *info, dir: dir, redirected: info.Sandbox != "bwrap"}
	res, err := run.Receive(false, "")
	switch {
	case err != nil:
		notes = append(notes, fmt.Sprintf("%s: the commits of the interrupted run %s were not taken in: %v", info.Task, info.Run, err))
		if rerr := run.Restore(); rerr != nil {
			notes = append(notes, fmt.Sprintf("%s: cannot put back %s/.git: %v", info.Task, info.Worktree, rerr))
		}
	case res.Head != res.Before:
		notes = append(notes, fmt.Sprintf("%s: took in the commits of the interrupted run %s (%s)", info.Task, info.Run, res.Head))
	}
	return notes
}

// killRun SIGKILLs what is left in the PID namespace ns of the run named
// run. A namespace number is reused once its namespace is gone, so a
// process counts only when its own mount namespace shows that run at the
// active-run file.
func killRun(r *repo.Repo, ns, run string) int {
	if ns == "" {
		return 0
	}
	return osx.KillPidNamespaceIf(ns, func(pid int) bool {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "root", r.ActiveRunFile()))
		var info Info
		return err == nil && json.Unmarshal(data, &info) == nil && info.Run == run
	})
}
