package workflow

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/notes"
)

// ahead is what a transition's commit needs from git that does not depend
// on the files it writes: HEAD and HEAD's trees on the paths the commit
// will change. Run reads it while Prepare works (a claim's worktree
// checkout is most of a claim), so the commit itself runs only the git
// processes that write: the index, the trees and the commit object side
// by side, then the branch.
//
// HEAD may move before the commit (the workflow lock is taken after
// Prepare): the branch update names the HEAD read here as the one it
// replaces, so a stale read fails it, and the commit is made again from
// what HEAD is then.
type ahead struct {
	head  string
	trees map[string]map[string]gitobj.Entry
}

// errNotAhead: what was read ahead does not serve this commit.
var errNotAhead = errors.New("read ahead of a commit that changed")

// readAhead starts reading, for a commit of the files paths (absolute),
// what commitAhead needs; the function it returns waits for the read and
// gives nil when there is none to use.
func (w *Workflow) readAhead(paths ...string) func() *ahead {
	none := func() *ahead { return nil }
	if !w.Config.WorkflowAutoCommit || w.Repo.CommitTreeOnly() {
		return none
	}
	for _, who := range []string{"author", "committer"} {
		if _, ok := w.Repo.Ident(who, time.Now()); !ok {
			return none
		}
	}
	var rels []string
	for _, p := range paths {
		rel, err := filepath.Rel(w.Repo.Worktree, p)
		if err != nil || gitx.HasControl(rel) {
			return none
		}
		rels = append(rels, filepath.ToSlash(rel))
	}
	g := w.gitWT()
	done := make(chan *ahead, 1)
	go func() {
		a := &ahead{}
		var err error
		if a.head, a.trees, err = readTrees(g, dirsOf(rels)); err != nil {
			a = nil
		}
		done <- a
	}()
	return func() *ahead { return <-done }
}

// aheadPaths are the files a transition of e to bucket to at now commits:
// the task file where it is and where it goes, and the day's event shard.
func (w *Workflow) aheadPaths(e *Entry, to Bucket, now time.Time) []string {
	paths := []string{e.Path, events.Path(w.EventsDir(), now.UTC())}
	if to != "" && to != e.Bucket {
		dir := w.BucketDir(to)
		if to == Done {
			dir = filepath.Join(dir, DoneShard(now))
		}
		paths = append(paths, filepath.Join(dir, filepath.Base(e.Path)))
	}
	return paths
}

// covers reports whether a holds the trees a commit of the files rels
// rewrites.
func (a *ahead) covers(rels []string) bool {
	for _, d := range dirsOf(rels) {
		if _, ok := a.trees[d]; !ok {
			return false
		}
	}
	return true
}

// usable reports whether a, read ahead, may make the commit now: HEAD is
// still where it was read, as far as the branch's ref file tells (a packed
// ref tells nothing; the branch update decides).
func (w *Workflow) usable(a *ahead) bool {
	if a == nil {
		return false
	}
	ref, err := os.ReadFile(filepath.Join(w.Repo.CommonDir, "refs", "heads", filepath.FromSlash(w.Repo.Branch)))
	return err != nil || string(bytes.TrimSpace(ref)) == a.head
}

// commitAhead commits the files rels on top of a.head: every object id is
// computed here, so the index, the trees and the commit are written side
// by side, and the branch moves from a.head. errNotAhead (and any other
// failure) leaves the commit to commitFiles, which reads HEAD again.
func (w *Workflow) commitAhead(a *ahead, rels []string, msg string, cr *notes.Pending) (string, error) {
	g, root := w.gitWT(), w.Repo.Worktree
	rawLen := len(a.head) / 2
	dirs := dirsOf(rels)
	trees := map[string]map[string]gitobj.Entry{}
	for _, d := range dirs {
		ents, ok := a.trees[d]
		if !ok {
			return "", errNotAhead
		}
		cp := make(map[string]gitobj.Entry, len(ents))
		for n, e := range ents {
			cp[n] = e
		}
		trees[d] = cp
	}
	// A blob's id is its content's hash: git's filters (.gitattributes,
	// core.autocrlf) could make git store other bytes, so each id is
	// checked below against what update-index wrote.
	blobs := map[string]string{}
	for _, rel := range rels {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		blobs[rel] = gitobj.ID("blob", data, rawLen)
	}
	place(trees, root, rels, blobs)
	tree, writes, err := buildTrees(dirs, trees, rawLen)
	if err != nil {
		return "", err
	}
	now := time.Now()
	author, aok := w.Repo.Ident("author", now)
	committer, cok := w.Repo.Ident("committer", now)
	if !aok || !cok {
		return "", errNotAhead
	}
	// As git commit-tree writes it, message as given.
	body := fmt.Sprintf("tree %s\nparent %s\nauthor %s\ncommitter %s\n\n%s\n", tree, a.head, author, committer, strings.TrimRight(msg, "\n"))
	commit := gitobj.New("commit", []byte(body), rawLen)
	staged := alongside(func() error {
		_, err := g.Run(append([]string{"update-index", "--add", "--remove", "--"}, rels...)...)
		return err
	})
	err = gitobj.Write(g, append(append(writes, commit), cr.Objs()...), rawLen)
	if serr := staged(); err == nil {
		err = serr
	}
	if err != nil {
		return "", err
	}
	for _, oid := range blobs {
		if !w.haveObject(g, oid) {
			return "", errNotAhead
		}
	}
	return updateHead(g, commit.OID, a.head, msg, cr)
}

// haveObject reports whether the object oid exists: as a loose object
// (where update-index has just written it), or else as git finds it.
func (w *Workflow) haveObject(g gitx.Git, oid string) bool {
	if _, err := os.Stat(filepath.Join(w.Repo.ObjectsDir(), oid[:2], oid[2:])); err == nil {
		return true
	}
	return g.Has(oid)
}
