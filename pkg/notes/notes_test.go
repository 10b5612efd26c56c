package notes

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/repo"
)

// commits makes n commits on main and returns them, oldest first.
func commits(t *testing.T, dir string, n int) []string {
	t.Helper()
	var out []string
	for i := 0; i < n; i++ {
		gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprintf("c%d", i))
		out = append(out, gittest.Git(t, dir, "rev-parse", "HEAD"))
	}
	return out
}

func resolve(t *testing.T, dir string) *repo.Repo {
	t.Helper()
	r, err := repo.Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// add writes one note body on cs in one notes commit.
func add(t *testing.T, r *repo.Repo, body string, cs ...string) (tip, was string) {
	t.Helper()
	blob := gitobj.New("blob", []byte(body), len(cs[0])/2)
	m := Map{}
	for _, c := range cs {
		m[c] = blob.OID
	}
	return write1(t, r, Change{Notes: m, Blobs: []gitobj.Object{blob}, Message: "burl: test"})
}

// write1 is Write with a reader of its own.
func write1(t *testing.T, r *repo.Repo, c Change) (tip, was string) {
	t.Helper()
	tip, was, err := Write(r, gitobj.NewReader(r.Git), c)
	if err != nil {
		t.Fatal(err)
	}
	return tip, was
}

// What Write stores is what git notes shows, for every commit of a
// landing, in one notes commit; a second landing adds one more commit.
func TestWriteIsWhatGitNotesShows(t *testing.T) {
	dir := gittest.NewRepo(t)
	r := resolve(t, dir)
	cs := commits(t, dir, 3)
	tip, was := add(t, r, "{\"a\":1}\n", cs[0], cs[1])
	if was != "" {
		t.Fatalf("was %q, want no notes ref before", was)
	}
	for _, c := range cs[:2] {
		if got := gittest.Git(t, dir, "notes", "--ref=burl", "show", c); got != `{"a":1}` {
			t.Fatalf("note of %s: %q", c, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "refs", "notes", "burl")); err != nil {
		t.Fatal(err)
	}
	tip2, was2 := add(t, r, "{\"b\":2}\n", cs[2])
	if was2 != tip || tip2 == tip {
		t.Fatalf("second write: was %s (want %s), tip %s", was2, tip, tip2)
	}
	if n := gittest.Git(t, dir, "rev-list", "--count", Ref); n != "2" {
		t.Fatalf("%s notes commits, want 2", n)
	}
	// The same notes again change nothing.
	if tip3, was3 := add(t, r, "{\"b\":2}\n", cs[2]); tip3 != tip2 || was3 != tip2 {
		t.Fatalf("an unchanged note made commit %s", tip3)
	}
	m, err := Read(r.Git, Ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 3 || m[cs[0]] != m[cs[1]] || m[cs[2]] == m[cs[0]] {
		t.Fatalf("read back %v", m)
	}
}

// A tree git notes wrote itself (flat) keeps one note per commit: burl
// replaces a note where it stands, and adds its own beside them.
func TestWriteOverGitNotesLayout(t *testing.T) {
	dir := gittest.NewRepo(t)
	r := resolve(t, dir)
	cs := commits(t, dir, 2)
	gittest.Git(t, dir, "notes", "--ref=burl", "add", "-m", "by hand", cs[0])
	add(t, r, "{\"x\":1}\n", cs[0], cs[1])
	if got := gittest.Git(t, dir, "notes", "--ref=burl", "show", cs[0]); got != `{"x":1}` {
		t.Fatalf("note of %s: %q (two notes concatenated?)", cs[0], got)
	}
	if ls := gittest.Git(t, dir, "ls-tree", "--name-only", Ref); !strings.Contains(ls, cs[0]) || strings.Contains(ls, cs[1]) {
		t.Fatalf("root of the notes tree:\n%s", ls)
	}
	m, err := Read(r.Git, Ref)
	if err != nil || len(m) != 2 {
		t.Fatalf("read back %v %v", m, err)
	}
	// And git notes reads and extends what burl wrote.
	gittest.Git(t, dir, "notes", "--ref=burl", "append", "-m", "more", cs[1])
	if got := gittest.Git(t, dir, "notes", "--ref=burl", "show", cs[1]); !strings.HasPrefix(got, `{"x":1}`) {
		t.Fatalf("git notes after burl: %q", got)
	}
}

// Two clones that landed different commits end with every note on both:
// the remote's notes merge into this clone's by union.
func TestMergeIsAUnion(t *testing.T) {
	dir := gittest.NewRepo(t)
	r := resolve(t, dir)
	cs := commits(t, dir, 3)
	base, _ := add(t, r, "{\"n\":0}\n", cs[0])
	add(t, r, "{\"n\":1}\n", cs[1])
	// The remote's side: another notes commit on base, as another clone
	// would push it, fetched into Tracking.
	other := gitobj.New("blob", []byte("{\"n\":2}\n"), len(cs[0])/2)
	gittest.Git(t, dir, "update-ref", Tracking("origin"), base)
	mine := gittest.Git(t, dir, "rev-parse", Ref)
	gittest.Git(t, dir, "update-ref", Ref, base)
	write1(t, r, Change{Notes: Map{cs[2]: other.OID}, Blobs: []gitobj.Object{other}, Message: "theirs"})
	theirs := gittest.Git(t, dir, "rev-parse", Ref)
	gittest.Git(t, dir, "update-ref", Tracking("origin"), theirs)
	gittest.Git(t, dir, "update-ref", Ref, mine)

	got, err := Merge(r, "origin")
	if err != nil || got.How != "merge" || len(got.Theirs)+len(got.Ours) != 0 {
		t.Fatalf("merge: %+v %v", got, err)
	}
	m, err := Read(r.Git, Ref)
	if err != nil || len(m) != 3 {
		t.Fatalf("after the merge: %v %v", m, err)
	}
	if in := gittest.Git(t, dir, "merge-base", "--is-ancestor", theirs, Ref); in != "" {
		t.Fatal(in)
	}
	// Nothing left to merge now, and a fast-forward when behind.
	if got, err := Merge(r, "origin"); err != nil || got.How != "" {
		t.Fatalf("second merge: %+v %v", got, err)
	}
	gittest.Git(t, dir, "update-ref", Tracking("origin"), gittest.Git(t, dir, "rev-parse", Ref))
	gittest.Git(t, dir, "update-ref", Ref, base)
	if got, err := Merge(r, "origin"); err != nil || got.How != "fast-forward" {
		t.Fatalf("behind: %+v %v", got, err)
	}
}

// Two clones that landed the same commit (both settled one pull request):
// the remote's record is taken when the remote's workflow branch records
// its sha256, as a fast-forward when this clone has nothing else of its
// own; else this clone's is kept.
func TestMergeConflictTakesTheRecordedOne(t *testing.T) {
	dir := gittest.NewRepo(t)
	r := resolve(t, dir)
	cs := commits(t, dir, 2)
	base, _ := add(t, r, "{\"n\":0}\n", cs[0])
	theirs, _ := add(t, r, "{\"by\":\"b\"}\n", cs[1])
	gittest.Git(t, dir, "update-ref", Tracking("origin"), theirs)
	gittest.Git(t, dir, "update-ref", Ref, base)
	mine, _ := add(t, r, "{\"by\":\"a\"}\n", cs[1])
	// The remote's workflow branch, whose log records the event of WHO.
	workflow := func(who string) {
		t.Helper()
		event := fmt.Sprintf("{\"action\":\"pr_merged\",\"details\":{\"record_sha256\":\"%s\"}}\n", Hash([]byte("{\"by\":\""+who+"\"}\n")))
		f := filepath.Join(t.TempDir(), "events")
		if err := os.WriteFile(f, []byte(event), 0o644); err != nil {
			t.Fatal(err)
		}
		blob := gittest.Git(t, dir, "hash-object", "-w", f)
		gittest.Git(t, dir, "update-index", "--add", "--cacheinfo", "100644,"+blob+",.workflow/events/2026/11/2026-11-26.ndjson")
		tree := gittest.Git(t, dir, "write-tree")
		gittest.Git(t, dir, "update-ref", "refs/remotes/origin/"+r.Branch, gittest.Git(t, dir, "commit-tree", "-m", "w", tree))
		gittest.Git(t, dir, "read-tree", "HEAD")
	}

	workflow("a")
	got, err := Merge(r, "origin")
	if err != nil || got.How != "merge" || len(got.Ours) != 1 || got.Ours[0] != cs[1] || len(got.Theirs) != 0 {
		t.Fatalf("the remote records this clone's: %+v %v", got, err)
	}
	if note := gittest.Git(t, dir, "notes", "--ref=burl", "show", cs[1]); note != `{"by":"a"}` {
		t.Fatalf("kept %q", note)
	}

	gittest.Git(t, dir, "update-ref", Ref, mine)
	workflow("b")
	got, err = Merge(r, "origin")
	if err != nil || got.How != "fast-forward" || len(got.Theirs) != 1 || got.Theirs[0] != cs[1] || len(got.Ours) != 0 {
		t.Fatalf("the remote records its own: %+v %v", got, err)
	}
	if tip := gittest.Git(t, dir, "rev-parse", Ref); tip != theirs {
		t.Fatalf("%s is %s, not the remote's %s", Ref, tip, theirs)
	}
}

// State reads the refs from their loose files, and from git once they
// are packed; a ref in neither does not exist.
func TestState(t *testing.T) {
	dir := gittest.NewRepo(t)
	r := resolve(t, dir)
	if l, tr, err := State(r, "origin"); err != nil || l != "" || tr != "" {
		t.Fatalf("no notes: %q %q %v", l, tr, err)
	}
	cs := commits(t, dir, 1)
	tip, _ := add(t, r, "{}\n", cs[0])
	gittest.Git(t, dir, "update-ref", Tracking("origin"), tip)
	if l, tr, err := State(r, "origin"); err != nil || l != tip || tr != tip {
		t.Fatalf("loose: %q %q %v", l, tr, err)
	}
	gittest.Git(t, dir, "pack-refs", "--all")
	if l, tr, err := State(r, "origin"); err != nil || l != tip || tr != tip {
		t.Fatalf("packed: %q %q %v", l, tr, err)
	}
	gittest.Git(t, dir, "update-ref", "-d", Tracking("origin"))
	if l, tr, err := State(r, "origin"); err != nil || l != tip || tr != "" {
		t.Fatalf("tracking deleted: %q %q %v", l, tr, err)
	}
}

// Where the user's git signs commits, the notes commit is signed.
func TestWriteSigns(t *testing.T) {
	if _, err := os.Stat("/usr/bin/ssh-keygen"); err != nil {
		t.Skip("no ssh-keygen")
	}
	dir := gittest.NewRepo(t)
	key := filepath.Join(t.TempDir(), "key")
	if out, err := runCmd("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	pub, _ := os.ReadFile(key + ".pub")
	allowed := filepath.Join(t.TempDir(), "allowed")
	os.WriteFile(allowed, []byte("test@burl.invalid "+string(pub)), 0o644)
	for k, v := range map[string]string{"gpg.format": "ssh", "user.signingKey": key + ".pub", "commit.gpgSign": "true", "gpg.ssh.allowedSignersFile": allowed, "user.email": "test@burl.invalid"} {
		gittest.Git(t, dir, "config", k, v)
	}
	r := resolve(t, dir)
	cs := commits(t, dir, 1)
	add(t, r, "{}\n", cs[0])
	if got := gittest.Git(t, dir, "log", "-1", "--format=%G?", Ref); got != "G" {
		t.Fatalf("notes commit signature %q, want G", got)
	}
}

func runCmd(name string, args ...string) ([]byte, error) {
	return exec.Command(name, args...).CombinedOutput()
}
