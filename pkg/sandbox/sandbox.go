// Package sandbox confines an agent run to its task (DESIGN §16): Box runs
// it under bubblewrap with the repository read-only but for the task's
// worktree, its git dir, the object store and its own branch; Guard records
// what no run may change and, after the run, names and undoes what changed.
// watch (pkg/watch) is the one caller: Record and Prepare before a run,
// Finish and Guard.Changes after it.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/burl-dev/burl/pkg/gitx"
)

var (
	probeOnce sync.Once
	probeErr  error
)

// Probe reports whether bubblewrap can confine a run here (it is
// installed, and this kernel lets it make the namespaces it needs). It
// asks once per process.
func Probe() error {
	probeOnce.Do(func() {
		bin, err := exec.LookPath("bwrap")
		if err != nil {
			probeErr = errors.New("bwrap is not installed (Debian: apt-get install bubblewrap)")
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, "--dev-bind", "/", "/", "--ro-bind", "/", "/", "--die-with-parent", "--", "true").CombinedOutput()
		if err != nil {
			probeErr = fmt.Errorf("bwrap cannot make its namespaces here: %s", strings.TrimSpace(firstLine(string(out), err.Error())))
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
	Root      string // the repository's main worktree root
	CommonDir string // the shared git dir
	Worktree  string // the task's worktree
	Branch    string // the task's branch
	TaskLogs  string // the task's logs folder (the run's log, prompt and usage files)
	// ReadOnly are further paths the agent may read but not write, such as
	// the trust store.
	ReadOnly []string
	// Hide are paths the run must not read (the user's credentials): a
	// directory becomes an empty tmpfs, a file or socket /dev/null.
	Hide []string
	// Private are burl's own directories (the pinned git config), hidden
	// the same way.
	Private []string
}

// Box is a run prepared for bubblewrap. The agent sees refs/heads as a
// private copy, so that a commit can move its branch while no other ref
// moves for anyone else: Finish carries its own branch (and reflog) back.
type Box struct {
	spec    Spec
	gitDir  string // the worktree's own git dir
	tmp     string
	refs    string // the copy of refs/heads
	logs    string // the copy of logs/refs/heads (its branch's reflog only)
	before  string // the branch's commit at the start
	reflogN int64  // the size of the branch's reflog copy at the start
	// start is the copy of refs/heads as the run began, to tell what the
	// agent moved in it from what watch moved in the real refs meanwhile.
	start map[string]string
}

// Prepare readies a Box for spec.
func Prepare(spec Spec) (*Box, error) {
	g := gitx.In(spec.Worktree)
	gitDir, err := g.Run("rev-parse", "--absolute-git-dir")
	if err != nil {
		return nil, err
	}
	before, err := g.Run("rev-parse", "-q", "--verify", "refs/heads/"+spec.Branch)
	if err != nil {
		return nil, fmt.Errorf("branch %s: %w", spec.Branch, err)
	}
	tmp, err := os.MkdirTemp("", "burl-sandbox-")
	if err != nil {
		return nil, err
	}
	b := &Box{spec: spec, gitDir: gitDir, tmp: tmp, refs: filepath.Join(tmp, "refs"), logs: filepath.Join(tmp, "logs"), before: before}
	if err := copyTree(filepath.Join(spec.CommonDir, "refs", "heads"), b.refs); err != nil {
		b.Close()
		return nil, err
	}
	b.start = readRefs(b.refs)
	own := filepath.Join(spec.CommonDir, "logs", "refs", "heads", filepath.FromSlash(spec.Branch))
	if err := os.MkdirAll(filepath.Dir(filepath.Join(b.logs, filepath.FromSlash(spec.Branch))), 0o755); err != nil {
		b.Close()
		return nil, err
	}
	if data, err := os.ReadFile(own); err == nil {
		if err := os.WriteFile(filepath.Join(b.logs, filepath.FromSlash(spec.Branch)), data, 0o644); err != nil {
			b.Close()
			return nil, err
		}
		b.reflogN = int64(len(data))
	}
	// The mount points bwrap binds over must exist.
	for _, d := range []string{filepath.Join(spec.CommonDir, "logs", "refs", "heads"), spec.TaskLogs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Close()
			return nil, err
		}
	}
	return b, nil
}

// Wrap is argv run under bubblewrap: the file system as the user has it,
// the repository read-only except what the task may write, network kept.
// The PID namespace stays the host's: process IDs an agent reports (and
// InWatchRun's ancestry) must mean what they mean outside; what the run
// starts is ended by watch (KillMarked) and by bwrap dying with it.
func (b *Box) Wrap(argv []string) []string {
	s := b.spec
	out := []string{"bwrap", "--dev-bind", "/", "/", "--die-with-parent",
		"--ro-bind", s.Root, s.Root}
	if !within(s.CommonDir, s.Root) {
		out = append(out, "--ro-bind", s.CommonDir, s.CommonDir)
	}
	for _, p := range s.ReadOnly {
		if _, err := os.Stat(p); err == nil {
			out = append(out, "--ro-bind", p, p)
		}
	}
	out = append(out,
		"--bind", s.Worktree, s.Worktree,
		"--bind", b.gitDir, b.gitDir,
		"--bind", filepath.Join(s.CommonDir, "objects"), filepath.Join(s.CommonDir, "objects"),
		"--bind", b.refs, filepath.Join(s.CommonDir, "refs", "heads"),
		"--bind", b.logs, filepath.Join(s.CommonDir, "logs", "refs", "heads"),
		"--bind", s.TaskLogs, s.TaskLogs)
	for _, p := range append(append([]string{}, s.Hide...), s.Private...) {
		out = append(out, HideArgs(p)...)
	}
	out = append(out, "--chdir", s.Worktree, "--")
	return append(out, argv...)
}

// Finish carries the run's own branch back (a compare-and-swap from where
// it was at the start) with its new reflog lines, and removes the copies.
// It names the refs the agent changed in its copy besides its own: they
// changed for nobody else, and are reported as what it tried.
func (b *Box) Finish(g gitx.Git) (tried []string, err error) {
	defer b.Close()
	after, rerr := os.ReadFile(filepath.Join(b.refs, filepath.FromSlash(b.spec.Branch)))
	if rerr == nil {
		now := strings.TrimSpace(string(after))
		if gitx.ValidObjectID(now) && now != b.before {
			if _, err := g.Run("update-ref", "-m", "burl: the agent's commits, from its sandbox", "refs/heads/"+b.spec.Branch, now, b.before); err != nil {
				return nil, err
			}
		}
	}
	// The branch's reflog: what the run appended to the copy.
	rel := filepath.FromSlash(b.spec.Branch)
	if data, err := os.ReadFile(filepath.Join(b.logs, rel)); err == nil && int64(len(data)) > b.reflogN {
		if f, err := os.OpenFile(filepath.Join(b.spec.CommonDir, "logs", "refs", "heads", rel), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			_, _ = f.Write(data[b.reflogN:])
			f.Close()
		}
	}
	for name, v := range readRefs(b.refs) {
		if name != b.spec.Branch && b.start[name] != v {
			tried = append(tried, "refs/heads/"+name)
		}
	}
	for name := range b.start {
		if _, err := os.Stat(filepath.Join(b.refs, filepath.FromSlash(name))); err != nil && name != b.spec.Branch {
			tried = append(tried, "refs/heads/"+name+" (deleted)")
		}
	}
	sort.Strings(tried)
	return tried, nil
}

// Close removes the copies.
func (b *Box) Close() { _ = os.RemoveAll(b.tmp) }

// readRefs is the loose refs under dir, by name, with their contents.
func readRefs(dir string) map[string]string {
	out := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if data, err := os.ReadFile(p); err == nil {
			out[filepath.ToSlash(rel)] = strings.TrimSpace(string(data))
		}
		return nil
	})
	return out
}

// copyTree copies the regular files under src into dst (created).
func copyTree(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil // packed or deleted meanwhile
			}
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

func within(p, dir string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}
