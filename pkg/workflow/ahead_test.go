package workflow

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/repo"
)

// aheadWorkflow is an initialised workflow in a fresh repository.
func aheadWorkflow(t *testing.T) *Workflow {
	t.Helper()
	dir := gittest.NewRepo(t)
	r, err := repo.Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, w, err := Init(r, InitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Stderr = &bytes.Buffer{}
	return w
}

// moveFile moves a workflow file as a transition does and returns the
// paths to commit.
func moveFile(t *testing.T, w *Workflow, from, to string, body string) []string {
	t.Helper()
	src, dst := filepath.Join(w.Repo.Worktree, from), filepath.Join(w.Repo.Worktree, to)
	if err := os.WriteFile(dst, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if from != to {
		if err := os.Remove(src); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	return []string{src, dst}
}

func wtGit(t *testing.T, w *Workflow, args ...string) string {
	t.Helper()
	return gittest.Git(t, w.Repo.Worktree, args...)
}

// A commit made from what was read ahead is the commit git would make:
// same tree as the index, the identity git var gives, a clean worktree.
func TestCommitAheadIsGitsCommit(t *testing.T) {
	w := aheadWorkflow(t)
	paths := []string{filepath.Join(w.Dir, "READY", "TASK-001-a.md"), filepath.Join(w.Dir, "DOING", "TASK-001-a.md")}
	if err := os.WriteFile(paths[0], []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit("add", paths[0]); err != nil {
		t.Fatal(err)
	}
	read := w.readAhead(paths...)
	moveFile(t, w, ".workflow/READY/TASK-001-a.md", ".workflow/DOING/TASK-001-a.md", "two\n")
	a := read()
	if !w.usable(a) {
		t.Fatal("nothing read ahead")
	}
	before := wtGit(t, w, "rev-parse", "HEAD")
	sha, err := w.commitAhead(a, []string{".workflow/READY/TASK-001-a.md", ".workflow/DOING/TASK-001-a.md"}, "burl: claim\n\nBurl-Actor: x\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := wtGit(t, w, "rev-parse", "HEAD"); got != sha {
		t.Fatalf("HEAD %s, commit %s", got, sha)
	}
	if p := wtGit(t, w, "rev-parse", "HEAD^"); p != before {
		t.Fatalf("parent %s, want %s", p, before)
	}
	if st := wtGit(t, w, "status", "--porcelain"); st != "" {
		t.Fatalf("worktree not clean after the commit:\n%s", st)
	}
	if d := wtGit(t, w, "diff-index", "--cached", "HEAD"); d != "" {
		t.Fatalf("index differs from HEAD:\n%s", d)
	}
	if got := wtGit(t, w, "show", "HEAD:.workflow/DOING/TASK-001-a.md"); got != "two" {
		t.Fatalf("committed %q", got)
	}
	if out := wtGit(t, w, "ls-tree", "HEAD", ".workflow/READY/"); strings.Contains(out, "TASK-001") {
		t.Fatalf("READY still holds the task: %s", out)
	}
	gittest.Git(t, w.Repo.Root, "fsck", "--strict", "--no-progress")
	// Author and committer as git var reads them, to the second.
	for who, v := range map[string]string{"%an <%ae>": "GIT_AUTHOR_IDENT", "%cn <%ce>": "GIT_COMMITTER_IDENT"} {
		want := wtGit(t, w, "var", v)
		want = want[:strings.LastIndex(want, ">")+1]
		if got := wtGit(t, w, "log", "-1", "--format="+who); got != want {
			t.Fatalf("%s: %q, git var says %q", v, got, want)
		}
	}
	if msg := wtGit(t, w, "log", "-1", "--format=%B"); msg != "burl: claim\n\nBurl-Actor: x" {
		t.Fatalf("message %q", msg)
	}
}

// HEAD moved between the read and the commit (another transition committed
// first): the commit is made on the new HEAD, and both changes are kept.
func TestCommitWithStaleReadAheadLandsOnNewHead(t *testing.T) {
	w := aheadWorkflow(t)
	mine := filepath.Join(w.Dir, "READY", "TASK-001-a.md")
	other := filepath.Join(w.Dir, "READY", "TASK-002-b.md")
	read := w.readAhead(mine)
	if err := os.WriteFile(other, []byte("other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	theirs, err := w.Commit("add TASK-002", other)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The read made before, stale now, handed to the commit; with the
	// branch packed, only the branch update can tell it is stale.
	a := read()
	wtGit(t, w, "pack-refs", "--all")
	if !w.usable(a) {
		t.Fatal("a packed branch tells nothing: the read must be tried")
	}
	sha, err := w.commit(func() *ahead { return a }, "add TASK-001", mine)
	if err != nil {
		t.Fatal(err)
	}
	if p := wtGit(t, w, "rev-parse", sha+"^"); p != theirs {
		t.Fatalf("parent %s, want the other commit %s", p, theirs)
	}
	for _, f := range []string{"TASK-001-a.md", "TASK-002-b.md"} {
		wtGit(t, w, "cat-file", "-e", "HEAD:.workflow/READY/"+f)
	}
}

// A filter that changes what git stores (here the ident attribute, which
// git collapses on the way in) makes the id burl computes wrong: the
// commit must still hold what git stored, as the index does.
func TestCommitAheadFallsBackWhenGitFiltersTheFile(t *testing.T) {
	w := aheadWorkflow(t)
	attrs := filepath.Join(w.Repo.Worktree, ".gitattributes")
	if err := os.WriteFile(attrs, []byte("*.md ident\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit("attrs", attrs); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(w.Dir, "READY", "TASK-001-a.md")
	read := w.readAhead(p)
	if err := os.WriteFile(p, []byte("$Id: 0123456789abcdef $\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.commit(read, "add", p); err != nil {
		t.Fatal(err)
	}
	if d := wtGit(t, w, "diff-index", "--cached", "HEAD"); d != "" {
		t.Fatalf("index differs from HEAD:\n%s", d)
	}
	if got := wtGit(t, w, "cat-file", "-p", "HEAD:.workflow/READY/TASK-001-a.md"); got != "$Id$" {
		t.Fatalf("HEAD holds %q, not what git stores", got)
	}
}

// Ident gives git's identity line, and declines whenever git would read
// something burl does not (the environment) or change the name.
func TestIdent(t *testing.T) {
	dir := gittest.NewRepo(t)
	r, err := repo.Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1700000000, 0)
	line, ok := r.Ident("author", now)
	if !ok {
		t.Fatal("no identity from user.name and user.email")
	}
	if want := "burl-test <test@burl.invalid> 1700000000 " + now.Format("-0700"); line != want {
		t.Fatalf("%q, want %q", line, want)
	}
	t.Setenv("GIT_COMMITTER_EMAIL", "ci@example.com")
	if _, ok := r.Ident("committer", now); ok {
		t.Fatal("GIT_COMMITTER_EMAIL set: git's answer differs, burl must not guess")
	}
	if _, ok := r.Ident("author", now); !ok {
		t.Fatal("the committer's variable does not change the author")
	}
	gittest.Git(t, dir, "config", "user.name", "Ann;")
	r, err = repo.Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Ident("author", now); ok {
		t.Fatal("a name git trims must be left to git")
	}
	gittest.Git(t, dir, "config", "author.name", "Bea")
	r, err = repo.Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	if line, ok := r.Ident("author", now); !ok || !strings.HasPrefix(line, "Bea <test@burl.invalid> ") {
		t.Fatalf("author.name wins over user.name: %q %v", line, ok)
	}
}
