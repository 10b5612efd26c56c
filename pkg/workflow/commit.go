package workflow

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/gitx"
)

// Commit records the given workflow paths on the workflow branch (when
// workflow_auto_commit is on). Only these paths are staged, so leftovers of
// an interrupted command are never swept into someone else's commit.
//
// A transition's files are committed with plumbing that reads and writes
// only the trees on their paths (commitFiles): what it costs does not
// depend on how many tasks the workflow holds. init's folders (a
// migration) and the branch's first commit go through the index.
func (w *Workflow) Commit(summary string, paths ...string) (string, error) {
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
	var sha string
	var err error
	if files {
		// A concurrent git gc or maintenance (prune-packed removing a
		// fanout folder, a pack being rewritten) can fail a write for a
		// moment; the commit is redone rather than left to doctor.
		for attempt := 1; ; attempt++ {
			sha, err = commitFiles(g, w.Repo.Worktree, rels, msg)
			if err == nil || attempt == 3 || !transient(err) {
				break
			}
			time.Sleep(time.Duration(attempt) * 50 * time.Millisecond)
		}
	}
	// git commit (commitStaged's sparse path) runs maintenance itself.
	viaGitCommit := false
	if !files || err == errNoHead {
		sha, err = commitStaged(g, rels, msg, c != nil)
		viaGitCommit = c != nil
	}
	if err != nil {
		return "", err
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
// hook of the repository runs, nothing is signed, the message is kept).
func commitStaged(g gitx.Git, rels []string, msg string, sparse bool) (string, error) {
	stage := []string{"add", "-A", "--"}
	if sparse {
		stage = []string{"add", "-A", "--sparse", "--"}
	}
	if _, err := g.Run(append(stage, rels...)...); err != nil {
		return "", err
	}
	body := []byte(strings.TrimRight(msg, "\n") + "\n")
	if sparse {
		if _, err := g.RunInput(body, "-c", "core.hooksPath="+os.DevNull, "-c", "commit.gpgSign=false",
			"commit", "-q", "--no-verify", "--allow-empty", "--cleanup=verbatim", "-F", "-"); err != nil {
			return "", err
		}
		return g.Run("rev-parse", "HEAD")
	}
	tree, err := g.Run("write-tree")
	if err != nil {
		return "", err
	}
	parent := []string{"-p", "HEAD"}
	if _, herr := g.Run("rev-parse", "-q", "--verify", "HEAD"); herr != nil {
		parent = nil
	}
	out, err := g.RunInput(body, append([]string{"commit-tree", tree}, parent...)...)
	if err != nil {
		return "", err
	}
	return updateHead(g, strings.TrimSpace(string(out)), "", msg)
}

// updateHead moves the workflow branch to sha (from old, when given: the
// lock the caller holds keeps HEAD there, and a HEAD moved behind burl's
// back fails the update instead of being overwritten).
func updateHead(g gitx.Git, sha, old, msg string) (string, error) {
	subject, _, _ := strings.Cut(msg, "\n")
	args := []string{"update-ref", "-m", "commit: " + subject, "HEAD", sha}
	if old != "" {
		args = append(args, old)
	}
	if _, err := g.Run(args...); err != nil {
		return "", err
	}
	return sha, nil
}

// treeEntry is one entry of a git tree.
type treeEntry struct{ mode, oid string }

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
func commitFiles(g gitx.Git, root string, rels []string, msg string) (string, error) {
	var present []string
	for _, rel := range rels {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
			present = append(present, rel)
		}
	}
	// Every folder on the paths, the root ("") included.
	dirSet := map[string]bool{"": true}
	for _, rel := range rels {
		for d := path.Dir(rel); d != "." && !dirSet[d]; d = path.Dir(d) {
			dirSet[d] = true
		}
	}
	dirs := make([]string, 0, len(dirSet))
	for d := range dirSet {
		dirs = append(dirs, d)
	}
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
	for _, rel := range rels {
		d, name := path.Dir(rel), path.Base(rel)
		if d == "." {
			d = ""
		}
		if oid, ok := blobs[rel]; ok {
			mode := "100644"
			if st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err == nil && st.Mode()&0o100 != 0 {
				mode = "100755"
			}
			trees[d][name] = treeEntry{mode, oid}
		} else {
			delete(trees[d], name)
		}
	}
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
	err = writeTrees(g, writes)
	if serr := staged(); err == nil {
		err = serr
	}
	if err != nil {
		return "", err
	}
	body := []byte(strings.TrimRight(msg, "\n") + "\n")
	out, err := g.RunInput(body, "commit-tree", tree, "-p", head)
	if err != nil {
		return "", err
	}
	return updateHead(g, strings.TrimSpace(string(out)), head, msg)
}

// alongside runs f in its own goroutine; the function it returns waits for
// f and returns f's error.
func alongside(f func() error) func() error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	return func() error { return <-done }
}

// hashFiles writes the files rels as blobs with one git hash-object, which
// applies the repository's filters as git add would, and returns their ids.
func hashFiles(g gitx.Git, rels []string) (map[string]string, error) {
	blobs := map[string]string{}
	if len(rels) == 0 {
		return blobs, nil
	}
	out, err := g.RunInput([]byte(strings.Join(rels, "\n")+"\n"), "hash-object", "-w", "--stdin-paths")
	if err != nil {
		return nil, err
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(rels) {
		return nil, fmt.Errorf("git hash-object: %d ids for %d files", len(ids), len(rels))
	}
	for i, rel := range rels {
		blobs[rel] = ids[i]
	}
	return blobs, nil
}

// buildTrees encodes the changed trees (the folders dirs, their entries in
// trees) deepest first, so a folder's id is known before its parent's is
// built, and returns the root tree's id and the trees to write.
//
// Each tree is built here, its id computed from its content, and written
// with hash-object --literally, which looks up none of its entries: git
// mktree checks that every entry's object exists, which in a 10,000-task
// bucket is most of a claim (and fails outright when git gc moves an
// object meanwhile). Every entry's id was read from git, or written by
// this commit.
func buildTrees(dirs []string, trees map[string]map[string]treeEntry, rawLen int) (string, []treeWrite, error) {
	sort.Slice(dirs, func(i, j int) bool {
		if di, dj := depth(dirs[i]), depth(dirs[j]); di != dj {
			return di > dj
		}
		return dirs[i] < dirs[j]
	})
	var tree string
	var writes []treeWrite
	for _, d := range dirs {
		ents := trees[d]
		parent, name := path.Dir(d), path.Base(d)
		if parent == "." {
			parent = ""
		}
		if len(ents) == 0 && d != "" {
			// git has no empty folders: it leaves its parent.
			delete(trees[parent], name)
			continue
		}
		body, err := encodeTree(ents, rawLen)
		if err != nil {
			return "", nil, err
		}
		oid := objectID("tree", body, rawLen)
		writes = append(writes, treeWrite{oid, body})
		if d == "" {
			tree = oid
		} else {
			trees[parent][name] = treeEntry{"40000", oid}
		}
	}
	if tree == "" {
		return "", nil, fmt.Errorf("no root tree was written")
	}
	return tree, writes, nil
}

func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

// catBatch reads the objects names (as "HEAD:path") with one git cat-file
// --batch and hands each to each in order: its id, its type ("missing"
// when there is none) and its content. The request is one name a line, so
// a name with a line break is refused before git could misread it.
func catBatch(g gitx.Git, names []string, each func(i int, oid, kind string, body []byte) error) error {
	var req strings.Builder
	for _, n := range names {
		if strings.ContainsAny(n, "\n\r") {
			return fmt.Errorf("git cat-file --batch cannot be asked for %q: it holds a line break", n)
		}
		req.WriteString(n + "\n")
	}
	out, err := g.RunInput([]byte(req.String()), "cat-file", "--batch")
	if err != nil {
		return err
	}
	r := bufio.NewReader(bytes.NewReader(out))
	for i, name := range names {
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("git cat-file --batch: no answer for %s", name)
		}
		f := strings.Fields(line)
		if len(f) == 2 && f[1] == "missing" {
			if err := each(i, "", "missing", nil); err != nil {
				return err
			}
			continue
		}
		if len(f) != 3 {
			return fmt.Errorf("git cat-file --batch: %s: %q", name, strings.TrimSpace(line))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return fmt.Errorf("git cat-file --batch: %s: %q", name, strings.TrimSpace(line))
		}
		body := make([]byte, n+1)
		if _, err := io.ReadFull(r, body); err != nil {
			return err
		}
		if err := each(i, f[0], f[1], body[:n]); err != nil {
			return err
		}
	}
	return nil
}

// readTrees reads HEAD's commit and the trees of dirs (a folder HEAD does
// not have is empty) with one git cat-file.
func readTrees(g gitx.Git, dirs []string) (string, map[string]map[string]treeEntry, error) {
	names := []string{"HEAD"}
	for _, d := range dirs {
		names = append(names, "HEAD:"+d)
	}
	var head string
	trees := map[string]map[string]treeEntry{}
	err := catBatch(g, names, func(i int, oid, kind string, body []byte) error {
		if i == 0 {
			if kind == "missing" {
				return errNoHead
			}
			head = oid
			return nil
		}
		d := dirs[i-1]
		ents := map[string]treeEntry{}
		switch kind {
		case "missing":
		case "tree":
			var err error
			if ents, err = parseTree(body, len(oid)/2); err != nil {
				return fmt.Errorf("tree HEAD:%s: %w", d, err)
			}
		default:
			return fmt.Errorf("HEAD:%s is a %s, not a folder", d, kind)
		}
		trees[d] = ents
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	return head, trees, nil
}

// parseTree reads git's binary tree format: "mode name\0" and the raw
// object id of rawLen bytes, per entry.
func parseTree(b []byte, rawLen int) (map[string]treeEntry, error) {
	ents := map[string]treeEntry{}
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		nul := bytes.IndexByte(b, 0)
		if sp < 0 || nul < sp || len(b) < nul+1+rawLen {
			return nil, fmt.Errorf("malformed tree entry")
		}
		ents[string(b[sp+1:nul])] = treeEntry{string(b[:sp]), hex.EncodeToString(b[nul+1 : nul+1+rawLen])}
		b = b[nul+1+rawLen:]
	}
	return ents, nil
}

// treeWrite is a tree object to write and the id it must get.
type treeWrite struct {
	oid  string
	body []byte
}

// writeTrees writes the trees with one git hash-object --literally (it
// looks up none of their entries), each from a file of its own, since
// --stdin takes one object; and checks that git gave each the id computed
// here.
func writeTrees(g gitx.Git, ws []treeWrite) error {
	dir, err := os.MkdirTemp("", "burl-trees-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var paths strings.Builder
	for i, w := range ws {
		p := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(p, w.body, 0o600); err != nil {
			return err
		}
		paths.WriteString(p + "\n")
	}
	out, err := g.RunInput([]byte(paths.String()), "hash-object", "-t", "tree", "-w", "--literally", "--stdin-paths")
	if err != nil {
		return err
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(ws) {
		return fmt.Errorf("git hash-object: %d ids for %d trees", len(ids), len(ws))
	}
	for i, w := range ws {
		if ids[i] != w.oid {
			return fmt.Errorf("git hash-object wrote tree %s, computed %s", ids[i], w.oid)
		}
	}
	return nil
}

// encodeTree is git's binary tree format for ents, in git's order: names
// compared byte by byte, a folder's as if it ended in "/".
func encodeTree(ents map[string]treeEntry, rawLen int) ([]byte, error) {
	names := make([]string, 0, len(ents))
	for n := range ents {
		names = append(names, n)
	}
	key := func(n string) string {
		if m := ents[n].mode; m == "40000" || m == "040000" {
			return n + "/"
		}
		return n
	}
	sort.Slice(names, func(i, j int) bool { return key(names[i]) < key(names[j]) })
	var b bytes.Buffer
	for _, n := range names {
		e := ents[n]
		raw, err := hex.DecodeString(e.oid)
		if err != nil || len(raw) != rawLen {
			return nil, fmt.Errorf("tree entry %s: bad object id %q", n, e.oid)
		}
		mode := strings.TrimLeft(e.mode, "0")
		b.WriteString(mode)
		b.WriteByte(' ')
		b.WriteString(n)
		b.WriteByte(0)
		b.Write(raw)
	}
	return b.Bytes(), nil
}

// objectID is the id git gives an object of kind with body: SHA-1, or
// SHA-256 in a repository whose ids are 32 bytes.
func objectID(kind string, body []byte, rawLen int) string {
	var h hash.Hash
	if rawLen == sha256.Size {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}
