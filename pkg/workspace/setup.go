package workspace

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/repo"
)

// Setup prepares a new task worktree wt from the main worktree root
// (config worktree_setup, DESIGN §18): copies, links, then the command
// with env in box (DESIGN §24: the project's code, run confined as a
// gate is), its output in log. A path the main worktree lacks is skipped
// with a line in the log: a fresh clone without .env must still be able
// to claim.
func Setup(r *repo.Repo, wt string, s config.WorktreeSetup, box gate.Box, env []string, timeout time.Duration, log io.Writer) error {
	root := r.Root
	// What burl copies or links in is not the task's work: a worker's
	// `git add -A` must not commit a secret .env or a node_modules link
	// (an ignore rule "node_modules/" does not match a symlink).
	var ex []string
	for _, rel := range append(append([]string{}, s.Copy...), s.Link...) {
		ex = append(ex, "/"+strings.TrimPrefix(filepath.ToSlash(filepath.Clean(rel)), "/"))
	}
	if err := r.Exclude("copied or linked into task worktrees by worktree_setup", ex...); err != nil {
		return errs.Wrap(err, errs.User, "worktree_setup: cannot write info/exclude")
	}
	for _, rel := range s.Copy {
		src, dst := filepath.Join(root, filepath.FromSlash(rel)), filepath.Join(wt, filepath.FromSlash(rel))
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(log, "worktree_setup: copy %s: not in the main worktree, skipped\n", rel)
			continue
		}
		if err := staysIn("copy", rel, root, wt); err != nil {
			return err
		}
		if err := copyTree(src, dst); err != nil {
			return errs.Wrap(err, errs.User, "worktree_setup: cannot copy "+rel)
		}
		fmt.Fprintf(log, "worktree_setup: copied %s\n", rel)
	}
	for _, rel := range s.Link {
		src, dst := filepath.Join(root, filepath.FromSlash(rel)), filepath.Join(wt, filepath.FromSlash(rel))
		if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(log, "worktree_setup: link %s: not in the main worktree, skipped\n", rel)
			continue
		}
		if _, err := os.Lstat(dst); err == nil {
			fmt.Fprintf(log, "worktree_setup: link %s: the worktree has it already, kept\n", rel)
			continue
		}
		if err := staysIn("link", rel, root, wt); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return errs.Wrap(err, errs.User, "worktree_setup: cannot link "+rel)
		}
		if err := os.Symlink(src, dst); err != nil {
			return errs.Wrap(err, errs.User, "worktree_setup: cannot link "+rel)
		}
		fmt.Fprintf(log, "worktree_setup: linked %s -> %s\n", rel, src)
	}
	if len(s.Command) == 0 {
		return nil
	}
	fmt.Fprintf(log, "worktree_setup: running %q\n", s.Command)
	argv := box.Argv(s.Command)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = wt, box.Environ(env), log, log
	osx.SetProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return errs.Wrap(err, errs.User, "worktree_setup: cannot start its command")
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	var err error
	select {
	case err = <-done:
	case <-t.C:
		_ = osx.KillProcessGroup(cmd)
		<-done
		err = fmt.Errorf("timed out after %s (build_timeout) and was killed", timeout)
	}
	_ = osx.KillProcessGroup(cmd)
	if err != nil {
		return errs.New(errs.User, "worktree_setup: its command %q failed: %v", s.Command, err)
	}
	return nil
}

// staysIn refuses a worktree_setup path (config checked it has no .. and
// is relative) that symlinks lead out of the main worktree root, where it
// is read, or out of the task's worktree wt, where it is written: a
// symlink committed on a branch must not make burl copy ~/.ssh into a
// worktree, or write a file outside one (DESIGN §19).
func staysIn(what, rel, root, wt string) error {
	if err := config.InRepo(rel); err != nil {
		return errs.New(errs.User, "worktree_setup: %s %v", what, err).WithFix("fix worktree_setup in config.yaml")
	}
	for _, base := range []string{root, wt} {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if to, ok := resolvesIn(base, p); !ok {
			return errs.New(errs.User, "worktree_setup: %s %s leaves the repository: %s leads to %s", what, rel, p, to).
				WithFix("remove the symlink on the way, or %s from worktree_setup in config.yaml", rel)
		}
	}
	return nil
}

// resolvesIn reports whether p, symlinks resolved as far as it exists, is
// inside base; else where it leads.
func resolvesIn(base, p string) (string, bool) {
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return base, false
	}
	q := p
	for {
		if _, err := os.Lstat(q); err == nil {
			break
		}
		if filepath.Dir(q) == q {
			return p, false
		}
		q = filepath.Dir(q)
	}
	r, err := filepath.EvalSymlinks(q)
	if err != nil {
		return q + " (a broken symlink)", false
	}
	rel, err := filepath.Rel(realBase, r)
	return r, err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// copyTree copies a file, a symlink or a directory tree, keeping modes.
// It never writes through a symlink the destination holds: one is
// replaced.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if fi, err := os.Lstat(to); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if err := os.Remove(to); err != nil {
				return err
			}
		}
		switch {
		case info.IsDir():
			return os.MkdirAll(to, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			_ = os.Remove(to)
			return os.Symlink(target, to)
		case info.Mode().IsRegular():
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			return copyFile(p, to, info.Mode().Perm())
		}
		return nil
	})
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Port picks a free TCP port for task id in r: not in taken (the ports of
// the other DOING tasks) and free to listen on here now. Its search starts
// at a place derived from id, so two tasks claimed at the same moment
// rarely try the same port first.
func Port(id string, r config.PortRange, taken map[int]bool) (int, error) {
	n := r.Hi - r.Lo + 1
	h := fnv.New32a()
	h.Write([]byte(id))
	start := int(h.Sum32() % uint32(n))
	for i := 0; i < n; i++ {
		p := r.Lo + (start+i)%n
		if taken[p] {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		l.Close()
		return p, nil
	}
	return 0, errs.New(errs.User, "no free TCP port in port_range %s for %s", r, id).
		WithFix("widen port_range in .burl/.workflow/config.yaml, or finish some DOING tasks")
}
