package workflow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/notes"
)

// Commit records the given workflow paths on the workflow branch (when
// workflow_auto_commit is on). Only these paths are staged, so leftovers of
// an interrupted command are never swept into someone else's commit.
//
// A transition's files are committed with plumbing that reads and writes
// only the trees on their paths (commitAhead from what Run read while
// Prepare worked, else commitFiles): what it costs does not depend on how
// many tasks the workflow holds. init's folders (a
// migration) and the branch's first commit go through the index.
func (w *Workflow) Commit(summary string, paths ...string) (string, error) {
	return w.commit(nil, summary, paths...)
}

// commit is Commit with what Run read ahead for it (nil: nothing).
func (w *Workflow) commit(read func() *ahead, summary string, paths ...string) (string, error) {
	if !w.Config.WorkflowAutoCommit {
		return "", nil
	}
	g := w.gitWT()
	var rels []string
	seen, files := map[string]bool{}, true
	for _, p := range paths {
		rel, err := filepath.Rel(w.Repo.Worktree, p)
		if err != nil || seen[rel] {
			continue
		}
		seen[rel] = true
		rels = append(rels, filepath.ToSlash(rel))
		if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
			files = false
		}
		// commitFiles hands paths to git one per line; a file name from
		// the workflow branch may hold a newline, so such a commit goes
		// through git add, which takes it as an argument.
		if gitx.HasControl(rel) {
			files = false
		}
	}
	msg := fmt.Sprintf("burl: %s\n\nBurl-Actor: %s\nBurl-Host: %s\nBurl-Pid: %d\nBurl-Token: %s\n",
		summary, w.Actor, w.Host, os.Getpid(), token())
	c := w.readCone()
	// A landing record journalled for this commit, or left by a kill.
	cr, err := w.takeCarry(g)
	if err != nil {
		return "", fmt.Errorf("reading the landing record to commit (%s): %w", w.carryPath(), err)
	}
	var sha string
	if files && read != nil {
		a := read()
		if a != nil && (!w.usable(a) || !a.covers(rels)) {
			// Another transition committed since the read ahead (under
			// watch, most do), or this commit writes more than was read:
			// the same read again, now, through the process's cat-file,
			// costs no git process, where commitFiles costs two more
			// (hash-object, commit-tree) inside the workflow's lock.
			a = w.readAhead(paths...)()
		}
		if w.usable(a) {
			if sha, err = w.commitAhead(a, rels, msg, cr); err != nil {
				sha = ""
			}
		}
	}
	if files && sha == "" {
		// A concurrent git gc or maintenance (prune-packed removing a
		// fanout folder, a pack being rewritten) can fail a write for a
		// moment; the commit is redone rather than left to doctor.
		for attempt := 1; ; attempt++ {
			sha, err = commitFiles(g, w.Repo.Worktree, rels, msg, w.Repo.Signs(), cr)
			if err == nil || attempt == 3 || !transient(err) {
				break
			}
			time.Sleep(time.Duration(attempt) * 50 * time.Millisecond)
		}
	}
	// git commit (commitStaged's sparse path) runs maintenance itself.
	viaGitCommit := false
	if !files || err == errNoHead {
		// git commit moves the branch itself: the record goes first.
		if err = cr.Apply(g); err == nil {
			sha, err = commitStaged(g, rels, msg, c != nil, w.Repo.Signs())
		}
		viaGitCommit = c != nil
	}
	if err != nil {
		return "", err
	}
	if cr != nil {
		_ = w.dropCarry()
	}
	// gc gets its chance, as after git commit; asked only when git's own
	// test says it may have work.
	if !viaGitCommit && w.Repo.NeedsMaintenance() {
		_, _ = g.Run("maintenance", "run", "--auto", "--quiet")
	}
	if c != nil {
		w.keepCone(c, rels)
	} else if w.newShard != "" {
		// A new month: the history before it may have grown past where a
		// sparse index pays.
		if cerr := w.applyCone(w.newShard); cerr != nil {
			fmt.Fprintf(w.Stderr, "burl: warning: cannot make the workflow worktree sparse (%v); git burl init retries\n", cerr)
		}
	}
	w.newShard = ""
	return sha, nil
}

// transient reports a git failure that a concurrent gc or maintenance run
// can cause and that the same command survives a moment later.
func transient(err error) bool {
	var ge *gitx.Error
	if !errors.As(err, &ge) {
		return false
	}
	for _, s := range []string{"unable to create temporary file", "is unavailable", "is not a valid object", "unable to write", "No such file or directory", "Resource temporarily unavailable", "cannot lock ref"} {
		if strings.Contains(ge.Stderr, s) {
			return true
		}
	}
	return false
}

// errNoHead: the workflow branch has no commit yet (init's first).
var errNoHead = fmt.Errorf("the workflow branch has no commit yet")

// commitStaged stages rels in the index (add's walk for folders) and
// commits the index. git 2.39's write-tree expands a sparse index to every
// entry; git commit does not, so a sparse worktree commits with it (no
// hook of the repository runs, the message is kept). Where the user's git
// signs commits (sign), burl's are signed too (DESIGN §22).
func commitStaged(g gitx.Git, rels []string, msg string, sparse, sign bool) (string, error) {
	stage := []string{"add", "-A", "--"}
	if sparse {
		stage = []string{"add", "-A", "--sparse", "--"}
	}
	if _, err := g.Run(append(stage, rels...)...); err != nil {
		return "", err
	}
	body := []byte(strings.TrimRight(msg, "\n") + "\n")
	if sparse {
		if _, err := g.RunInput(body, "-c", "core.hooksPath="+os.DevNull, "-c", "commit.gpgSign="+strconv.FormatBool(sign),
			"commit", "-q", "--no-verify", "--allow-empty", "--cleanup=verbatim", "-F", "-"); err != nil {
			return "", err
		}
		return g.Run("rev-parse", "HEAD")
	}
	tree, err := g.Run("write-tree")
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", tree}
	if _, herr := g.Run("rev-parse", "-q", "--verify", "HEAD"); herr == nil {
		args = append(args, "-p", "HEAD")
	}
	out, err := g.RunInput(body, signed(args, sign)...)
	if err != nil {
		return "", err
	}
	return updateHead(g, strings.TrimSpace(string(out)), "", msg, nil)
}

// updateHead moves the workflow branch to sha (from old, when given: the
// lock the caller holds keeps HEAD there, and a HEAD moved behind burl's
// back fails the update instead of being overwritten), and the notes ref
// cr carries in the same transaction.
func updateHead(g gitx.Git, sha, old, msg string, cr *notes.Pending) (string, error) {
	subject, _, _ := strings.Cut(msg, "\n")
	var err error
	if cr == nil {
		args := []string{"update-ref", "-m", "commit: " + subject, "HEAD", sha}
		if old != "" {
			args = append(args, old)
		}
		_, err = g.Run(args...)
	} else {
		line := "update HEAD " + sha
		if old != "" {
			line += " " + old
		}
		_, err = g.RunInput([]byte(line+"\n"+cr.Move()), "update-ref", "-m", "commit: "+subject, "--stdin")
	}
	if err != nil {
		return "", err
	}
	return sha, nil
}

// commitFiles commits the files rels (relative to the worktree root; a
// missing one is removed) on top of HEAD without building the tree from
// the index: it reads the trees on their paths from HEAD, writes the
// changed trees, and commits. write-tree reads every entry of the index
// (and expands a sparse one); git commit also compares the whole index
// with HEAD.
//
// Its six git processes run as four steps, two at a time where neither
// needs the other's result: a transition runs them thousands of times a
// day, and each costs a process start.
func commitFiles(g gitx.Git, root string, rels []string, msg string, sign bool, cr *notes.Pending) (string, error) {
	var present []string
	for _, rel := range rels {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
			present = append(present, rel)
		}
	}
	dirs := dirsOf(rels)
	// The blobs are written while HEAD's trees are read.
	var blobs map[string]string
	blobErr := alongside(func() error {
		var err error
		blobs, err = hashFiles(g, present)
		return err
	})
	head, trees, err := readTrees(g, dirs)
	if berr := blobErr(); err == nil {
		err = berr
	}
	if err != nil {
		return "", err
	}
	place(trees, root, rels, blobs)
	tree, writes, err := buildTrees(dirs, trees, len(head)/2)
	if err != nil {
		return "", err
	}
	// The index is staged while the trees are written, and before the
	// commit, as git commit stages before it commits: a kill between the
	// two leaves staged changes, which doctor knows.
	staged := alongside(func() error {
		_, err := g.Run(append([]string{"update-index", "--add", "--remove", "--"}, rels...)...)
		return err
	})
	err = gitobj.Write(g, append(writes, cr.Objs()...), len(head)/2)
	if serr := staged(); err == nil {
		err = serr
	}
	if err != nil {
		return "", err
	}
	body := []byte(strings.TrimRight(msg, "\n") + "\n")
	out, err := g.RunInput(body, signed([]string{"commit-tree", tree, "-p", head}, sign)...)
	if err != nil {
		return "", err
	}
	return updateHead(g, strings.TrimSpace(string(out)), head, msg, cr)
}

// signed is a git commit-tree argv that signs as git commit would where
// the user's git signs commits (commit-tree itself ignores
// commit.gpgSign).
func signed(args []string, sign bool) []string {
	if sign {
		return append(args, "-S")
	}
	return args
}
