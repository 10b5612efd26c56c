package notes

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/repo"
)

// Change is one notes commit: the notes it sets, the blobs it brings
// (those not in the repository yet), the other parent of a merge, and its
// message.
type Change struct {
	Notes   Map
	Blobs   []gitobj.Object
	Merge   string
	Message string
}

// casTries bounds the compare-and-swap of the notes ref: burl writes
// notes under the workflow lock, so only a hand-run git notes can race it.
const casTries = 3

// Write commits c on top of the notes ref as it is and moves the ref from
// there (compare-and-swap), reading what it needs with rd. It returns the
// new tip and the one it replaced ("" when there was none). A change that
// sets nothing new and merges nothing writes nothing (tip == was). Where
// the user's git signs commits, the notes commit is signed as git commit
// would sign it.
func Write(r *repo.Repo, rd *gitobj.Reader, c Change) (tip, was string, err error) {
	for try := 1; ; try++ {
		tip, was, err = write(r, rd, c)
		if err == nil || try == casTries || !lostRace(err) {
			return tip, was, err
		}
	}
}

func write(r *repo.Repo, rd *gitobj.Reader, c Change) (tip, was string, err error) {
	g := r.Git
	oid, kind, body, err := rd.Read(Ref)
	if err != nil {
		return "", "", err
	}
	rootTree := ""
	if kind != "missing" {
		if kind != "commit" {
			return "", "", fmt.Errorf("%s is a %s, not a commit", Ref, kind)
		}
		was = oid
		rootTree, _, _ = strings.Cut(strings.TrimPrefix(string(body), "tree "), "\n")
	}
	rawLen := 0
	for commit := range c.Notes {
		rawLen = len(commit) / 2
		break
	}
	if was != "" {
		rawLen = len(was) / 2
	}
	if rawLen == 0 {
		return was, was, nil
	}
	e := &editor{rd: rd, rawLen: rawLen, trees: map[string]*tree{}}
	if _, err := e.load("", rootTree); err != nil {
		return "", "", err
	}
	for commit, blob := range c.Notes {
		if !gitx.ValidObjectID(commit) || len(commit) != 2*rawLen {
			return "", "", fmt.Errorf("cannot annotate %q: not a commit id of this repository", commit)
		}
		if err := e.set(commit, blob); err != nil {
			return "", "", err
		}
	}
	root, objs, err := e.write()
	if err != nil {
		return "", "", err
	}
	if root == "" {
		if c.Merge == "" {
			return was, was, nil
		}
		root = rootTree
	}
	if root == "" {
		// A merge of two empty notes trees: git's empty tree.
		o := gitobj.New("tree", nil, rawLen)
		root, objs = o.OID, append(objs, o)
	}
	objs = append(objs, c.Blobs...)
	var parents []string
	for _, p := range []string{was, c.Merge} {
		if p != "" {
			parents = append(parents, p)
		}
	}
	msg := strings.TrimRight(c.Message, "\n") + "\n"
	if commit, ok := commitObject(r, root, parents, msg, rawLen); ok {
		objs = append(objs, commit)
		tip = commit.OID
		if err := gitobj.Write(g, objs, rawLen); err != nil {
			return "", "", err
		}
	} else {
		if err := gitobj.Write(g, objs, rawLen); err != nil {
			return "", "", err
		}
		args := []string{"commit-tree", root}
		if r.Signs() {
			args = append(args, "-S")
		}
		for _, p := range parents {
			args = append(args, "-p", p)
		}
		out, err := g.RunInput([]byte(msg), args...)
		if err != nil {
			return "", "", err
		}
		tip = strings.TrimSpace(string(out))
	}
	subject, _, _ := strings.Cut(msg, "\n")
	if _, err := g.Run("update-ref", "-m", subject, Ref, tip, was); err != nil {
		return "", "", err
	}
	return tip, was, nil
}

// commitObject is the notes commit built here, as git commit-tree would
// write it; false when git must make it (it signs, or the identity is
// git's to work out).
func commitObject(r *repo.Repo, tree string, parents []string, msg string, rawLen int) (gitobj.Object, bool) {
	if r.CommitTreeOnly() {
		return gitobj.Object{}, false
	}
	now := time.Now()
	author, aok := r.Ident("author", now)
	committer, cok := r.Ident("committer", now)
	if !aok || !cok {
		return gitobj.Object{}, false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s", author, committer, msg)
	return gitobj.New("commit", []byte(b.String()), rawLen), true
}

// lostRace reports an update-ref whose compare-and-swap lost.
func lostRace(err error) bool {
	var ge *gitx.Error
	return errors.As(err, &ge) && strings.Contains(ge.Stderr, "cannot lock ref")
}

// Restore moves the notes ref back from tip to was (deleting it when was
// is ""), for a landing undone after its note was written. A ref that
// moved on since (a pull merged the remote's notes over it) is left as it
// is: the note stays on commits main no longer has, where no one looks.
func Restore(g gitx.Git, tip, was string) error {
	if tip == was {
		return nil
	}
	args := []string{"update-ref", "-m", "burl: landing undone", Ref, was, tip}
	if was == "" {
		args = []string{"update-ref", "-d", Ref, tip}
	}
	if _, err := g.Run(args...); err != nil && !lostRace(err) {
		return err
	}
	return nil
}
