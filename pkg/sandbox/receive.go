package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/osx"
)

// Received is what Receive took in.
type Received struct {
	Before string // the task branch when the run began
	Tip    string // the run's own commits' tip (Before when it made none)
	Head   string // the task branch now (Tip, or burl's commit of what was left)
	// Objects is how many objects came into the shared store.
	Objects int
}

// Refused is work a run handed back that burl does not take in: an
// unreadable tip, objects that are malformed, missing or not a commit.
// The task branch stays where it was and nothing entered the shared
// store.
type Refused struct{ Reason string }

func (e *Refused) Error() string { return "the run's commits were not taken in: " + e.Reason }

// ErrKind: the work failed a check, as a gate would.
func (e *Refused) ErrKind() errs.Kind { return errs.Validation }

func refuse(format string, args ...any) error { return &Refused{Reason: fmt.Sprintf(format, args...)} }

// Receive takes the run's work in as git receive-pack takes a push. The
// tip of the run's branch is read as a file; the objects it wrote are
// copied into a quarantine, the commits new to the shared store packed
// from there and indexed strictly (fsck) into a second quarantine, whose
// connectivity from the tip is checked before it moves into the shared
// store. With commit set, what the run left uncommitted in the worktree
// is then committed onto that tip, as message, by burl's own git with its
// own index; that index becomes the worktree's, so that its status is
// clean. The task branch moves once, by compare-and-swap from where it
// was when the run began, and only the task branch. No git burl runs
// reads the run's git dir, config, hooks, attributes or alternates.
func (run *Run) Receive(commit bool, message string) (Received, error) {
	res := Received{Before: run.Before, Tip: run.Before, Head: run.Before}
	if err := run.Restore(); err != nil {
		return res, err
	}
	tip, err := run.readTip()
	if err != nil {
		return res, err
	}
	if tip != run.Before {
		if res.Objects, err = run.take(tip); err != nil {
			return res, err
		}
		res.Tip = tip
	}
	// A run that made no commit has at most burl's commit of what it
	// left, which add -A takes whole from the worktree: where that holds
	// none of burl's paths, the commit cannot either, and needs no walk
	// (a cat-file process: DESIGN §28). The gates check the same change
	// again at submit and approve.
	walk := tip != run.Before || holdsReserved(run.Worktree, run.spec.Repo.Reserved())
	head, err := run.settleIndex(tip, commit, message)
	if err != nil {
		return res, err
	}
	if walk {
		if err := run.ownPaths(head); err != nil {
			return res, err
		}
	}
	if head != run.Before {
		common := run.spec.Repo.CommonDir
		if _, err := gitIn(common, "GIT_DIR="+common).Run("update-ref", "-m", "burl: the work of run "+run.Run,
			"refs/heads/"+run.Branch, head, run.Before); err != nil {
			return res, fmt.Errorf("the task branch %s moved during the run (it was at %s): %w", run.Branch, gitx.Short(run.Before), err)
		}
	}
	res.Head = head
	return res, run.installIndex()
}

// readTip is the run's branch as its git dir holds it: the loose ref (a
// regular file holding exactly one object id), else its line in
// packed-refs; a branch it deleted made no commits.
func (run *Run) readTip() (string, error) {
	hexLen := len(run.Before)
	name := "refs/heads/" + run.Branch
	f, err := osx.OpenInside(run.GitDir, filepath.FromSlash(name), false)
	if err == nil {
		defer f.Close()
		buf := make([]byte, hexLen+2)
		n, _ := io.ReadFull(f, buf)
		s := strings.TrimSuffix(string(buf[:n]), "\n")
		if len(s) != hexLen || !isHex(s) {
			return "", refuse("its branch %s is not one object id (%q)", name, oneLine(string(buf[:n])))
		}
		return s, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", refuse("its branch %s cannot be read as a file: %v", name, err)
	}
	pf, err := osx.OpenInside(run.GitDir, "packed-refs", false)
	if errors.Is(err, os.ErrNotExist) {
		return run.Before, nil
	}
	if err != nil {
		return "", refuse("its packed-refs cannot be read as a file: %v", err)
	}
	defer pf.Close()
	sc := bufio.NewScanner(io.LimitReader(pf, 256<<20))
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		oid, ref, ok := strings.Cut(sc.Text(), " ")
		if ok && ref == name {
			if len(oid) != hexLen || !isHex(oid) {
				return "", refuse("its branch %s in packed-refs is not one object id", name)
			}
			return oid, nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", refuse("its packed-refs cannot be read: %v", err)
	}
	return run.Before, nil
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// take brings the objects of tip that the shared store lacks through the
// quarantine into it. It returns how many objects came in.
func (run *Run) take(tip string) (int, error) {
	common := run.spec.Repo.CommonDir
	shared := filepath.Join(common, "objects")
	in := filepath.Join(run.dir, "in")
	defer os.RemoveAll(in)
	copyDir, incoming := filepath.Join(in, "copy"), filepath.Join(in, "incoming")
	if err := os.MkdirAll(filepath.Join(incoming, "pack"), 0o755); err != nil {
		return 0, err
	}
	packs, err := copyObjects(filepath.Join(run.GitDir, "objects"), copyDir, len(tip))
	if err != nil {
		return 0, refuse("its objects cannot be copied: %v", err)
	}
	// quarantine is git with only the shared store and dir, which no
	// ref update may leave (GIT_QUARANTINE_PATH).
	quarantine := func(dir string) gitx.Git {
		return gitIn(common, "GIT_DIR="+common, "GIT_OBJECT_DIRECTORY="+dir,
			"GIT_ALTERNATE_OBJECT_DIRECTORIES="+shared, "GIT_QUARANTINE_PATH="+dir)
	}
	fromCopy := quarantine(copyDir)
	for _, p := range packs {
		// The index is burl's, made from the pack's bytes.
		if _, err := fromCopy.Run("index-pack", p); err != nil {
			return 0, refuse("a pack it wrote does not index: %v", err)
		}
	}
	// What is new: reachable from tip, not from where the branch was nor
	// from any branch, tag or remote-tracking ref the store already has.
	exclude := []string{"--not", run.Before, "--branches", "--tags", "--remotes"}
	list, err := fromCopy.RunInput(nil, append([]string{"rev-list", "--objects", tip}, exclude...)...)
	if err != nil {
		return 0, refuse("its commits are not complete: %v", err)
	}
	objects := 0
	if len(list) > 0 {
		objects = strings.Count(string(list), "\n")
		pack := filepath.Join(in, "incoming.pack")
		if err := packTo(fromCopy, list, pack); err != nil {
			return 0, refuse("its objects cannot be packed: %v", err)
		}
		if err := indexStrict(quarantine(incoming), pack); err != nil {
			return 0, refuse("its objects are malformed: %v", err)
		}
	}
	// The connectivity check, against what came through index-pack only.
	checked := quarantine(incoming)
	if _, err := checked.Run(append([]string{"rev-list", "--objects", "--quiet", tip}, exclude...)...); err != nil {
		return 0, refuse("its commits are not complete: %v", err)
	}
	if t, err := checked.Run("cat-file", "-t", tip); err != nil || t != "commit" {
		return 0, refuse("its branch names %s, a %s, not a commit", gitx.Short(tip), orUnknown(t, err))
	}
	if err := migrate(filepath.Join(incoming, "pack"), filepath.Join(shared, "pack")); err != nil {
		return 0, err
	}
	return objects, nil
}

func orUnknown(t string, err error) string {
	if err != nil || t == "" {
		return "missing object"
	}
	return t
}

// packTo writes the pack of the listed objects (rev-list --objects
// lines) to file.
func packTo(g gitx.Git, list []byte, file string) error {
	p, stdin, err := g.Pipe("pack-objects", "--stdout", "-q")
	if err != nil {
		return err
	}
	go func() {
		_, _ = stdin.Write(list)
		stdin.Close()
	}()
	out, err := os.Create(file)
	if err != nil {
		p.Kill()
		return err
	}
	_, err = io.Copy(out, p.Stdout())
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if werr := p.Wait(); err == nil {
		err = werr
	}
	return err
}

// indexStrict runs index-pack --strict (every object fsck'ed: a tree with
// a .git or .. entry, a malformed commit, a link to nothing) on file into
// g's object directory.
func indexStrict(g gitx.Git, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	p, stdin, err := g.Pipe("index-pack", "--stdin", "--strict")
	if err != nil {
		return err
	}
	go func() {
		_, _ = io.Copy(stdin, f)
		stdin.Close()
	}()
	return p.Wait()
}

// migrate moves the quarantined pack files into the shared store, the
// pack before its index (git finds a pack by its index), as
// tmp_objdir_migrate orders them.
func migrate(from, to string) error {
	ents, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	rank := func(n string) int {
		switch {
		case strings.HasSuffix(n, ".keep"):
			return 1
		case strings.HasSuffix(n, ".pack"):
			return 2
		case strings.HasSuffix(n, ".rev"):
			return 3
		case strings.HasSuffix(n, ".idx"):
			return 4
		}
		return 5
	}
	sort.SliceStable(ents, func(i, j int) bool { return rank(ents[i].Name()) < rank(ents[j].Name()) })
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), "pack-") {
			continue
		}
		dst := filepath.Join(to, e.Name())
		if _, err := os.Lstat(dst); err == nil {
			continue // the same pack, by its name
		}
		var copied *fsx.Degraded
		if err := fsx.Move(filepath.Join(from, e.Name()), dst); err != nil && !errors.As(err, &copied) {
			return err
		}
	}
	return nil
}

// settleIndex gives the worktree an index of tip: the task's own index
// (its file stats still valid for what did not change) moved to tip,
// then, with commit, everything in the worktree added and, when that is
// not tip's tree, committed onto tip by burl (commitLeft): the head it
// returns. The index is made aside (installIndex puts it in place).
func (run *Run) settleIndex(tip string, commit bool, message string) (string, error) {
	common, wt := run.spec.Repo.CommonDir, run.Worktree
	idx := filepath.Join(run.dir, "index")
	_ = os.Remove(idx)
	copied := false
	if m, _ := filepath.Glob(filepath.Join(run.Admin, "sharedindex.*")); len(m) == 0 {
		if f, err := osx.OpenInside(run.Admin, "index", false); err == nil {
			out, err := os.Create(idx)
			if err == nil {
				_, err = io.Copy(out, f)
				out.Close()
			}
			f.Close()
			copied = err == nil
			if !copied {
				_ = os.Remove(idx)
			}
		}
	}
	g := gitIn(wt, "GIT_DIR="+common, "GIT_WORK_TREE="+wt, "GIT_INDEX_FILE="+idx)
	// The task's index is one of where the run began; a run that made
	// commits needs one of its tip. --reset, not -m: the worktree's files
	// differ from the index (the run changed them), which -m refuses.
	if !copied || tip != run.Before {
		if _, err := g.Run("read-tree", "--reset", tip); err != nil {
			_ = os.Remove(idx)
			if _, err := g.Run("read-tree", tip); err != nil {
				return "", err
			}
		}
	}
	if !commit {
		return tip, nil
	}
	if _, err := g.Run("add", "-A"); err != nil {
		return "", fmt.Errorf("adding what the agent left: %w", err)
	}
	return run.commitLeft(idx, tip, message)
}

// commitLeft commits the index idx onto tip with message, when it differs
// from tip's tree, and returns the head: git commit (one process, where
// write-tree, a tree lookup and commit-tree were three) in a git dir of
// burl's own whose detached HEAD is tip, so that no shared ref moves: the
// task branch moves by Receive's compare-and-swap alone. Like commit-tree
// it signs nothing and keeps the message verbatim; "nothing to commit"
// (exit 1, HEAD still tip) is no change.
func (run *Run) commitLeft(idx, tip, message string) (string, error) {
	common, wt := run.spec.Repo.CommonDir, run.Worktree
	gd := filepath.Join(run.dir, "intake")
	if err := os.RemoveAll(gd); err != nil {
		return "", err
	}
	files := map[string]string{"HEAD": tip + "\n", "commondir": common + "\n"}
	// The main worktree's own settings, which git reads with GIT_DIR the
	// common dir (as add -A did): extensions.worktreeConfig's file.
	if b, err := os.ReadFile(filepath.Join(common, "config.worktree")); err == nil {
		files["config.worktree"] = string(b)
	}
	if err := os.Mkdir(gd, 0o700); err != nil {
		return "", err
	}
	defer os.RemoveAll(gd)
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(gd, name), []byte(data), 0o600); err != nil {
			return "", err
		}
	}
	g := gitIn(wt, "GIT_DIR="+gd, "GIT_WORK_TREE="+wt, "GIT_INDEX_FILE="+idx)
	_, err := g.RunInput([]byte(message), "-c", "maintenance.auto=false", "commit", "-q", "--no-verify", "--no-gpg-sign",
		"--cleanup=verbatim", "--untracked-files=no", "-F", "-")
	b, rerr := os.ReadFile(filepath.Join(gd, "HEAD"))
	head := strings.TrimSpace(string(b))
	switch {
	case rerr != nil:
		return "", fmt.Errorf("committing what the agent left: %w", rerr)
	case err == nil && head != tip && len(head) == len(tip) && isHex(head):
		return head, nil
	case err != nil && gitx.ExitCodeOf(err) == 1 && head == tip:
		return tip, nil
	case err == nil:
		return "", fmt.Errorf("committing what the agent left: git commit left HEAD at %q", oneLine(head))
	}
	return "", fmt.Errorf("committing what the agent left: %w", err)
}

// installIndex makes the index settleIndex made the worktree's, in one
// rename, once the task branch is at its head.
func (run *Run) installIndex() error {
	if st, err := os.Lstat(run.Admin); err != nil || !st.IsDir() {
		return fmt.Errorf("%s is no longer a directory: the worktree's index is left as it was", run.Admin)
	}
	return os.Rename(filepath.Join(run.dir, "index"), filepath.Join(run.Admin, "index"))
}
