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

// Update is a notes commit made ready: the objects still to write and the
// move of the notes ref from Was to Tip (Tip == Was: nothing to do). A
// transition writes it with its own commit, in the same update-ref
// transaction; Apply writes it alone.
type Update struct {
	Objects  []gitobj.Object
	Tip, Was string
	Subject  string
	rawLen   int
}

// Write commits c on top of the notes ref as it is and moves the ref from
// there (compare-and-swap), reading what it needs with rd. It returns the
// new tip and the one it replaced ("" when there was none).
func Write(r *repo.Repo, rd *gitobj.Reader, c Change) (tip, was string, err error) {
	for try := 1; ; try++ {
		u, err := Plan(r, rd, c)
		if err == nil {
			if err = u.Apply(r.Git); err == nil {
				return u.Tip, u.Was, nil
			}
		}
		if try == casTries || !lostRace(err) {
			return "", "", err
		}
	}
}

// Apply writes u's objects with one git unpack-objects and moves the notes
// ref from Was to Tip (compare-and-swap).
func (u *Update) Apply(g gitx.Git) error {
	if u.Tip == u.Was {
		return nil
	}
	if len(u.Objects) > 0 {
		if err := gitobj.Write(g, u.Objects, u.rawLen); err != nil {
			return err
		}
	}
	_, err := g.Run("update-ref", "-m", u.Subject, Ref, u.Tip, u.Was)
	return err
}

// Plan builds the notes commit of c on top of the notes ref as it is: a
// change that sets nothing new and merges nothing is none (Tip == Was).
// The commit is built here, as git commit-tree would write it; where git
// must make it (it signs, or the identity is git's to work out) the
// objects are written and git makes it now.
func Plan(r *repo.Repo, rd *gitobj.Reader, c Change) (*Update, error) {
	u := &Update{Subject: strings.TrimRight(strings.SplitN(c.Message, "\n", 2)[0], " ")}
	oid, kind, body, err := rd.Read(Ref)
	if err != nil {
		return nil, err
	}
	rootTree := ""
	if kind != "missing" {
		if kind != "commit" {
			return nil, fmt.Errorf("%s is a %s, not a commit", Ref, kind)
		}
		u.Was = oid
		rootTree, _, _ = strings.Cut(strings.TrimPrefix(string(body), "tree "), "\n")
	}
	u.Tip = u.Was
	for commit := range c.Notes {
		u.rawLen = len(commit) / 2
		break
	}
	if u.Was != "" {
		u.rawLen = len(u.Was) / 2
	}
	if u.rawLen == 0 {
		return u, nil
	}
	e := &editor{rd: rd, rawLen: u.rawLen, trees: map[string]*tree{}}
	if _, err := e.load("", rootTree); err != nil {
		return nil, err
	}
	for commit, blob := range c.Notes {
		if !gitx.ValidObjectID(commit) || len(commit) != 2*u.rawLen {
			return nil, fmt.Errorf("cannot annotate %q: not a commit id of this repository", commit)
		}
		if err := e.set(commit, blob); err != nil {
			return nil, err
		}
	}
	root, objs, err := e.write()
	if err != nil {
		return nil, err
	}
	if root == "" {
		if c.Merge == "" {
			return u, nil
		}
		root = rootTree
	}
	if root == "" {
		// A merge of two empty notes trees: git's empty tree.
		o := gitobj.New("tree", nil, u.rawLen)
		root, objs = o.OID, append(objs, o)
	}
	objs = append(objs, c.Blobs...)
	var parents []string
	for _, p := range []string{u.Was, c.Merge} {
		if p != "" {
			parents = append(parents, p)
		}
	}
	msg := strings.TrimRight(c.Message, "\n") + "\n"
	if commit, ok := commitObject(r, root, parents, msg, u.rawLen); ok {
		u.Objects, u.Tip = append(objs, commit), commit.OID
		return u, nil
	}
	g := r.Git
	if err := gitobj.Write(g, objs, u.rawLen); err != nil {
		return nil, err
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
		return nil, err
	}
	u.Tip = strings.TrimSpace(string(out))
	return u, nil
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
