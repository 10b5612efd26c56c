// Package sandbox confines an agent run to its task (DESIGN §16, §19).
//
// Each run gets a run directory R under the shared git dir: R/git is a
// disposable git dir of its own (its branch, a snapshot of the shared
// refs, the shared object store as a read-only alternate) that the agent
// commits into, and R/out the outputs it may write. Under bubblewrap
// nothing else of the repository is writable from the sandbox, the
// worktree's .git names R/git, and the run has its own PID namespace; with
// sandbox: none the worktree's .git file is pointed at R/git for the run
// and put back after it. After the run, Receive takes its work in as git
// receive-pack takes a push: quarantine, connectivity check, then a
// compare-and-swap of the task branch. Guard records what no run may
// change and, after the run, names and undoes what changed.
//
// watch (pkg/watch) is the one caller of a run: Prepare, Wrap and Start,
// Receive, Close.
package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/burl-dev/burl/pkg/bwrapbox"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/runguard"
)

// infoFD is the descriptor bubblewrap reports the run's namespaces on.
const infoFD = 3

var (
	probeOnce sync.Once
	probeErr  error
)

// Probe reports whether bubblewrap can confine a run here: it is
// installed, and it makes the namespaces and mounts of a box and reports
// them. It asks once per process.
func Probe() error {
	probeOnce.Do(func() {
		bin, err := bwrapbox.BwrapProgram()
		if err != nil {
			probeErr = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		args := append((&bwrapbox.Box{}).Args(), "--info-fd", strconv.Itoa(infoFD), "--", "true")
		cmd := exec.CommandContext(ctx, bin, args...)
		rd, wr, err := os.Pipe()
		if err != nil {
			probeErr = err
			return
		}
		defer rd.Close()
		cmd.ExtraFiles = []*os.File{wr}
		out, err := cmd.CombinedOutput()
		wr.Close()
		if err != nil {
			probeErr = fmt.Errorf("bwrap cannot make its namespaces here: %s", strings.TrimSpace(firstLine(string(out), err.Error())))
			return
		}
		if _, err := readInfo(rd); err != nil {
			probeErr = fmt.Errorf("bwrap does not report its namespaces: %v", err)
		}
	})
	return probeErr
}

func firstLine(s, otherwise string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return otherwise
	}
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// Spec is one run's place in the repository.
type Spec struct {
	Repo     *repo.Repo
	Task     string // the task's ID
	Worktree string // the task's worktree
	Branch   string // the task's branch
	// Bwrap: the run is wrapped in bubblewrap; otherwise (sandbox: none)
	// the worktree's .git file is redirected for the run.
	Bwrap bool
	// ReadOnly are further paths the agent may read but not write (the
	// trust store's directory, local-path remotes).
	ReadOnly []string
	// Hide are paths the run must not read (the user's credentials): a
	// directory becomes an empty tmpfs, a file or socket /dev/null.
	Hide []string
	// Private are burl's own directories (the pinned git config), hidden
	// the same way.
	Private []string
	// CleanConfig is a copy of the shared .git/config without the
	// credentials its remotes' URLs hold, bound over it ("" when it holds
	// none).
	CleanConfig string
	// Box is the rest of the run's box, the same for every run of the
	// agent: sandbox_write, what it must see under /tmp (nil: none).
	Box *bwrapbox.Box
}

// Info is a run as run.json records it. Inside a sandboxed run the same
// document is readable at the repository's active-run file.
type Info struct {
	Task     string `json:"task"`
	Run      string `json:"run"`
	Branch   string `json:"branch"`
	Before   string `json:"before"`
	Worktree string `json:"worktree"`
	// GitDir is the run's own git dir; Out the folder it may write its
	// outputs to (usage, scope requests).
	GitDir string `json:"git_dir"`
	Out    string `json:"out"`
	// Admin is the task's real git dir (.git/worktrees/<name>).
	Admin   string `json:"admin"`
	Sandbox string `json:"sandbox"` // bwrap | none
	// The watcher that runs it, to tell a live run from a dead one's.
	WatcherPID   int    `json:"watcher_pid"`
	WatcherStart string `json:"watcher_start"`
	Boot         string `json:"boot_id"`
}

// Run is one prepared run.
type Run struct {
	spec Spec
	Info
	dir string
	// ns holds the run's PID namespace open once started under
	// bubblewrap: while it is held the kernel cannot give its number to
	// another namespace, so a scan by that number finds only this run's.
	ns     *os.File
	nsName string
	init   *osx.Process
	// redirected: the worktree's .git names the run's git dir (none).
	redirected bool
	// fixed is the burl-owned part of the run's git dir as Prepare wrote
	// it (snapshot).
	fixed map[string]string
	// refs are the run's git dir's refs as Prepare wrote them, kept
	// without bubblewrap only (Changed).
	refs runguard.Refs
	// Swept is what Prepare did to the runs a dead watcher left on the
	// worktree (Sweep), to be said.
	Swept []string
}

// File names inside a run directory.
const (
	runJSON  = "run.json"
	dotGit   = "dotgit"
	outDir   = "out"
	pidnsTxt = "pidns"
	// UsageName is the usage file in the run's out folder
	// (BURL_USAGE_FILE).
	UsageName = "usage.json"
)

var runSeq atomic.Int64

// Prepare makes the run directory and the agent's git dir, and, without
// bubblewrap, points the worktree's .git at it. Runs a dead watcher left
// on this worktree are cleaned first.
func Prepare(spec Spec) (*Run, error) {
	r := spec.Repo
	swept := Sweep(r, spec.Worktree)
	admin, err := AdminDir(r, spec.Worktree)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s-%d-%d", spec.Task, os.Getpid(), runSeq.Add(1))
	dir := filepath.Join(r.RunsDir(), name)
	_ = os.RemoveAll(dir)
	if err := os.MkdirAll(filepath.Join(dir, outDir), 0o755); err != nil {
		return nil, err
	}
	run := &Run{spec: spec, dir: dir, Swept: swept}
	start, _, _ := osx.ProcessStart(os.Getpid())
	run.Info = Info{Task: spec.Task, Run: name, Branch: spec.Branch, Worktree: spec.Worktree,
		GitDir: repo.RunGitDir(dir), Out: filepath.Join(dir, outDir), Admin: admin, Sandbox: "none",
		WatcherPID: os.Getpid(), WatcherStart: start, Boot: osx.BootID()}
	if spec.Bwrap {
		run.Sandbox = "bwrap"
	}
	fail := func(err error) (*Run, error) {
		run.Close()
		return nil, err
	}
	if run.Before, err = makeGitDir(r, run.GitDir, spec, admin); err != nil {
		return fail(err)
	}
	run.fixed = snapshot(run.GitDir)
	if run.spec.CleanConfig, err = bwrapbox.CleanConfig(r, dir); err != nil {
		return fail(err)
	}
	if !spec.Bwrap {
		if run.refs, err = runguard.ReadRefs(run.GitDir); err != nil {
			return fail(err)
		}
	}
	data, _ := json.MarshalIndent(run.Info, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, runJSON), append(data, '\n'), 0o644); err != nil {
		return fail(err)
	}
	if err := os.WriteFile(filepath.Join(dir, dotGit), []byte("gitdir: "+run.GitDir+"\n"), 0o644); err != nil {
		return fail(err)
	}
	if spec.Bwrap {
		// The mount point the run's description is bound over: empty
		// outside every sandbox.
		if err := emptyFile(r.ActiveRunFile()); err != nil {
			return fail(err)
		}
		return run, nil
	}
	if err := setGitfile(spec.Worktree, run.GitDir); err != nil {
		return fail(err)
	}
	run.redirected = true
	return run, nil
}

// emptyFile makes p an empty regular file, in place: running sandboxes
// have their run mounted over it, and replacing the file would detach
// those mounts.
func emptyFile(p string) error {
	if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
		return nil
	} else if err == nil && !st.Mode().IsRegular() {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// UsageFile is where the agent may write its usage (BURL_USAGE_FILE).
func (run *Run) UsageFile() string { return filepath.Join(run.Out, UsageName) }

// Bwrap reports whether the run goes under bubblewrap.
func (run *Run) Bwrap() bool { return run.spec.Bwrap }

// Dir is the run directory.
func (run *Run) Dir() string { return run.dir }

// Wrap is argv run under bubblewrap, in the run's box (Box): of the
// repository only the task's worktree, the run's git dir and its out
// folder writable; the worktree's .git naming the run's git dir; the
// run's description at the active-run file.
func (run *Run) Wrap(argv []string) []string {
	bin, _ := bwrapbox.BwrapProgram()
	b := run.Box()
	out := append([]string{bin}, b.Args()...)
	out = append(out, "--info-fd", strconv.Itoa(infoFD), "--chdir", run.spec.Worktree, "--")
	return append(out, argv...)
}

// Box is the run's box: the spec's, with the repository read-only and
// the run's own places writable.
func (run *Run) Box() *bwrapbox.Box {
	r := run.spec.Repo
	b := repoBox(run.spec)
	wt := run.spec.Worktree
	b.Write(wt, "the task's worktree: the agent's work")
	b.File(filepath.Join(run.dir, dotGit), filepath.Join(wt, ".git"), "the worktree's .git names the run's own git dir")
	b.Write(run.GitDir, "the run's own git dir: its commits, burl takes them in after it")
	for _, name := range fixed {
		b.Read(filepath.Join(run.GitDir, name), "burl's part of the run's git dir")
	}
	b.Write(run.Out, "the run's outputs (usage, scope requests)")
	b.File(filepath.Join(run.dir, runJSON), r.ActiveRunFile(), "the run's description: burl's verbs inside know they are in a run")
	return b
}

// repoBox is the spec's box with the shared repository, spec.ReadOnly
// read-only and spec.Hide, spec.Private hidden: what every run's box has.
func repoBox(spec Spec) *bwrapbox.Box {
	b := &bwrapbox.Box{Network: true}
	if spec.Box != nil {
		b = spec.Box.Clone()
	}
	r := spec.Repo
	b.Read(r.Root, "the shared repository: only burl writes it")
	b.Read(r.CommonDir, "the shared git dir: only burl writes it")
	for _, p := range spec.ReadOnly {
		b.Read(p, "burl's state, or a remote that is a path here: only burl writes it")
	}
	if spec.CleanConfig != "" {
		b.File(spec.CleanConfig, filepath.Join(r.CommonDir, "config"), "the repository's config without the credentials in its remotes' URLs")
	}
	for _, p := range spec.Hide {
		b.Hide(p, "sandbox_hide: the user's credentials")
	}
	for _, p := range spec.Private {
		b.Hide(p, "burl's own state (the pinned git config)")
	}
	return b
}

// bwrapInfo is what bubblewrap reports on its info descriptor.
type bwrapInfo struct {
	ChildPID int    `json:"child-pid"`
	PidNS    uint64 `json:"pid-namespace"`
}

// readInfo reads bubblewrap's report: one JSON object (the descriptor may
// stay open after it).
func readInfo(f *os.File) (bwrapInfo, error) {
	var info bwrapInfo
	_ = f.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := json.NewDecoder(f).Decode(&info); err != nil {
		return info, err
	}
	if info.ChildPID <= 0 || info.PidNS == 0 {
		return info, errors.New("no child pid or PID namespace in its report")
	}
	return info, nil
}

// Start starts cmd, made from Wrap's argv, and learns the run's PID
// namespace from bubblewrap. When the namespace is already gone (the run
// ended at once) Namespace is "".
func (run *Run) Start(cmd *exec.Cmd) error {
	rd, wr, err := os.Pipe()
	if err != nil {
		return err
	}
	defer rd.Close()
	cmd.ExtraFiles = []*os.File{wr}
	err = cmd.Start()
	wr.Close()
	if err != nil {
		return err
	}
	info, err := readInfo(rd)
	if err != nil {
		return nil // bwrap failed to set up: its exit status says why
	}
	// Held open, the namespace keeps its number until Close.
	f, err := os.Open("/proc/" + strconv.Itoa(info.ChildPID) + "/ns/pid")
	if err != nil {
		return nil
	}
	if st, err := f.Stat(); err != nil || osx.Inode(st) != info.PidNS {
		f.Close()
		return nil
	}
	run.ns, run.nsName = f, osx.PidNamespaceName(info.PidNS)
	_ = os.WriteFile(filepath.Join(run.dir, pidnsTxt), []byte(run.nsName+"\n"), 0o644)
	// bwrap's first process, the namespace's init: bwrap does not wait
	// for it, so watch (a subreaper) inherits it and must.
	if p, err := osx.OpenProcess(info.ChildPID); err == nil {
		if osx.PidNamespace(info.ChildPID) == run.nsName {
			run.init = p
		} else {
			p.Close()
		}
	}
	return nil
}

// WaitInit waits up to timeout for the end of the run's first process,
// whose end ends every other process of its namespace, and reaps it. It
// reports whether it ended.
func (run *Run) WaitInit(timeout time.Duration) bool {
	if run.init == nil {
		return true
	}
	return run.init.Wait(timeout)
}

// Changed names what the run changed in the part of its git dir that is
// burl's (its config, hooks, info and alternates): nothing burl reads,
// but what no run may change (read-only under bubblewrap); and its HEAD
// when it no longer names the task's branch: burl takes in that branch
// only, never what HEAD names, so such a HEAD is the attack of a run that
// wants its leftovers committed elsewhere (issue 31 item 1), said as one.
// Without bubblewrap it also names every other ref of its git dir the run
// moved and explain does not give to burl (a fetch): a run that cannot be
// confined is judged by what it tried on what it took for the
// repository's refs (DESIGN §19: the tamper check covers every ref). The
// run's git dir is discarded with it: nothing there needs putting back.
func (run *Run) Changed(explain runguard.Explain) []string {
	now := snapshot(run.GitDir)
	var out []string
	if run.refs != nil {
		after, err := runguard.ReadRefs(run.GitDir)
		if err != nil {
			out = append(out, "the refs of "+run.GitDir+" could not be read after the run: "+err.Error())
		}
		for _, c := range run.refs.Diff(after) {
			if c.Name == "HEAD" || c.Name == "refs/heads/"+run.Branch || explain != nil && explain(c) {
				continue
			}
			out = append(out, c.String()+" (in the run's git dir)")
		}
	}
	head := filepath.Join(run.GitDir, "HEAD")
	if f, err := osx.OpenInside(run.GitDir, "HEAD", false); err != nil {
		out = append(out, head+" changed (unreadable)")
	} else {
		data, _ := io.ReadAll(io.LimitReader(f, 4096))
		f.Close()
		if want := "ref: refs/heads/" + run.Branch; strings.TrimSpace(string(data)) != want {
			out = append(out, head+" changed (it names "+oneLine(string(data))+", not "+want+")")
		}
	}
	for p, v := range now {
		if was, ok := run.fixed[p]; !ok {
			out = append(out, filepath.Join(run.GitDir, p)+" added")
		} else if was != v {
			out = append(out, filepath.Join(run.GitDir, p)+" changed")
		}
	}
	for p := range run.fixed {
		if _, ok := now[p]; !ok {
			out = append(out, filepath.Join(run.GitDir, p)+" removed")
		}
	}
	sort.Strings(out)
	return out
}

// Namespace is the run's PID namespace ("" without bubblewrap).
func (run *Run) Namespace() string { return run.nsName }

// Restore puts the worktree's .git file back (sandbox: none), whatever
// the run left at its place. Receive and Close call it; it is for the
// callers that must see the worktree as git knows it before that (the
// Guard).
func (run *Run) Restore() error {
	if !run.redirected {
		return nil
	}
	if err := restoreGitfile(run.spec.Worktree, run.Admin); err != nil {
		return err
	}
	run.redirected = false
	return nil
}

// Close ends the run: the worktree's .git file as git made it, the
// namespace let go, the run directory removed.
func (run *Run) Close() error {
	err := run.Restore()
	if run.ns != nil {
		run.ns.Close()
		run.ns = nil
	}
	if run.init != nil {
		run.init.Close()
		run.init = nil
	}
	if err == nil {
		err = removeAll(run.dir)
	}
	return err
}

// removeAll removes dir, also where the run took the permissions off its
// own folders.
func removeAll(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// gitIn runs burl's own git on the shared repository, with the
// environment that names it and nothing inherited.
func gitIn(dir string, env ...string) gitx.Git {
	return gitx.Git{Dir: dir, OwnRepo: true, Env: env}
}

// Active is the run this process is inside, when it is a sandboxed one:
// the description watch mounted at the repository's active-run file.
func Active(r *repo.Repo) (*Info, bool) {
	data, err := os.ReadFile(r.ActiveRunFile())
	if err != nil || len(data) == 0 {
		return nil, false
	}
	var info Info
	if json.Unmarshal(data, &info) != nil || info.Out == "" {
		return nil, false
	}
	return &info, true
}
