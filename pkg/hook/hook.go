// Package hook is burl's side of git's hooks: the entry points `git burl
// hook commit-msg|pre-push` (Command) and the pieces they need (which task a
// branch belongs to, the ref lines git feeds pre-push, the Burl-Task
// trailer), and installing
// the shims into the hooks directory git reads without losing a hook that
// was already there. The gates themselves live in pkg/gate; the entry
// points run them through pkg/taskgate, exactly as submit does.
package hook

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/workflow"
)

// TrailerKey is the trailer commit-msg adds to every commit of a task branch,
// so `git log --grep` and `git interpret-trailers --parse` find a task's work
// after its branch is gone.
const TrailerKey = "Burl-Task"

// Tasks finds the task a branch belongs to. It opens the workflow only when
// a branch is named like a task branch, and then only once: commit-msg runs
// on every commit of every branch, and a non-task branch must cost nothing
// beyond the one git call that named it.
type Tasks struct {
	Dir    string    // where the hook runs (the worktree root)
	Stderr io.Writer // for the workflow's configuration warnings

	w      *workflow.Workflow
	opened bool
}

// Find returns the task whose branch is branch when it is in one of the
// buckets in, or nil. A repository without burl has no tasks: hooks left
// installed there must not get in the way.
func (ts *Tasks) Find(branch string, in ...workflow.Bucket) (*workflow.Workflow, *workflow.Entry, error) {
	id, ok := workflow.IDForBranch(branch)
	if !ok {
		return nil, nil, nil
	}
	if !ts.opened {
		ts.opened = true
		r, err := repo.Resolve(ts.Dir)
		if err != nil {
			return nil, nil, err
		}
		if !r.Initialized() {
			return nil, nil, nil
		}
		if ts.w, err = workflow.Load(r); err != nil {
			return nil, nil, err
		}
		if ts.Stderr != nil {
			ts.w.Stderr = ts.Stderr
		}
	}
	if ts.w == nil {
		return nil, nil, nil
	}
	found, err := ts.w.Locate(id)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range found {
		if !slices.Contains(in, e.Bucket) {
			continue
		}
		ts.w.Read(&e)
		if e.Err != nil {
			return nil, nil, e.Err
		}
		// A branch that only looks like this task's (task-001-other) is not it.
		if e.Task.Branch() == branch {
			return ts.w, &e, nil
		}
	}
	return nil, nil, nil
}

// PushedRef is one line git writes to the pre-push hook's stdin.
type PushedRef struct {
	LocalRef, LocalSHA, RemoteRef, RemoteSHA string
}

// Deletion reports a push that deletes RemoteRef: there is nothing to check.
func (p PushedRef) Deletion() bool { return strings.Trim(p.LocalSHA, "0") == "" }

// Branches are the branch names the push involves, remote first: what lands
// on the remote decides, but `git push origin HEAD:other` from a task branch
// is still that task's work.
func (p PushedRef) Branches() []string {
	var out []string
	for _, ref := range []string{p.RemoteRef, p.LocalRef} {
		if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// ParsePush reads git's pre-push lines: <local ref> SP <local sha> SP
// <remote ref> SP <remote sha>.
func ParsePush(r io.Reader) ([]PushedRef, error) {
	var refs []PushedRef
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" {
			continue
		}
		f := strings.Split(line, " ")
		if len(f) != 4 {
			return nil, fmt.Errorf("line %d of the pre-push input is not `<local ref> <local sha> <remote ref> <remote sha>`: %q", n, line)
		}
		refs = append(refs, PushedRef{LocalRef: f[0], LocalSHA: f[1], RemoteRef: f[2], RemoteSHA: f[3]})
	}
	return refs, sc.Err()
}

// Blocked is a pushed ref whose commits fail its task's gates.
type Blocked struct {
	Ref        string          `json:"ref"`
	Task       string          `json:"task"`
	Base       string          `json:"base"`
	Head       string          `json:"head"`
	Violations gate.Violations `json:"violations"`
}

// BlockedRefs renders every violation under the ref it belongs to.
type BlockedRefs []Blocked

// HumanLines is a header per ref followed by its violations.
func (bs BlockedRefs) HumanLines() []string {
	var out []string
	for _, b := range bs {
		out = append(out, fmt.Sprintf("%s (%s, %s..%s):", b.Ref, b.Task, gitx.Short(b.Base), gitx.Short(b.Head)))
		for _, l := range b.Violations.HumanLines() {
			out = append(out, "  "+l)
		}
	}
	return out
}

// scissors is the line below which `git commit -v` shows the diff; git cuts
// the message there.
const scissors = "------------------------ >8 ------------------------"

// Trailered is a commit message file as read, and as git's
// interpret-trailers would have it with the Burl-Task trailer.
type Trailered struct {
	msg, out []byte
}

// AddTrailer asks git to add "Burl-Task: <id>" to the message in file
// unless a Burl-Task trailer is already there. It only reads the file, so
// the hook can prepare the message while the gates run and write it only
// if they pass.
func AddTrailer(g gitx.Git, file, id string) (*Trailered, error) {
	msg, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	out, err := g.RunInput(msg, "interpret-trailers", "--if-exists", "doNothing", "--trailer", TrailerKey+": "+id)
	if err != nil {
		return nil, err
	}
	return &Trailered{msg: msg, out: out}, nil
}

// Message is the message to write back, or nil when the file should stay
// as it is: the trailer was already there, or the message is empty (git
// aborts such a commit after the hook, and the trailer alone would turn
// it into a real one). commentChar is core.commentChar; only for "auto",
// where git picks the character per message, is git asked.
func (t *Trailered) Message(g gitx.Git, commentChar string) ([]byte, error) {
	if bytes.Equal(t.out, t.msg) {
		return nil, nil
	}
	body := t.msg
	if i := bytes.Index(body, []byte(scissors)); i >= 0 {
		body = body[:bytes.LastIndexByte(body[:i], '\n')+1]
	}
	if commentChar == "auto" {
		text, err := g.RunInput(body, "stripspace", "--strip-comments")
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(text)) == 0 {
			return nil, nil
		}
		return t.out, nil
	}
	if emptyMessage(body, commentChar) {
		return nil, nil
	}
	return t.out, nil
}

// emptyMessage is `git stripspace --strip-comments` leaving nothing: every
// line is a comment or blank (git's blanks are space, tab, CR, LF).
func emptyMessage(body []byte, commentChar string) bool {
	if commentChar == "" {
		commentChar = "#"
	}
	for _, l := range bytes.Split(body, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte(commentChar)) && len(bytes.Trim(l, " \t\r")) > 0 {
			return false
		}
	}
	return true
}
