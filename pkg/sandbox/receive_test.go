package sandbox

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/runguard"
)

// git runs git in dir with env, failing the test on error.
func git(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := gitErr(dir, env, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func gitErr(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return strings.TrimSpace(out.String()), err
}

// fixture is a repository with main, a task branch checked out in a
// worktree, and another task's branch whose commit is loose.
type fixture struct {
	root, wt, branch string
	r                *repo.Repo
	main             string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	git(t, "", nil, "init", "-q", "-b", "main", root)
	git(t, root, nil, "config", "user.name", "u")
	git(t, root, nil, "config", "user.email", "u@e")
	os.WriteFile(filepath.Join(root, "README.md"), []byte("hello\n"), 0o644)
	git(t, root, nil, "add", "-A")
	git(t, root, nil, "commit", "-qm", "base")
	f := &fixture{root: root, branch: "task-001-x", main: git(t, root, nil, "rev-parse", "HEAD")}
	f.wt = filepath.Join(root, ".worktrees", "task-001-x")
	git(t, root, nil, "worktree", "add", "-q", "-b", f.branch, f.wt, "main")
	r, err := repo.Resolve(root)
	if err != nil {
		t.Fatal(err)
	}
	f.r = r
	return f
}

func (f *fixture) prepare(t testing.TB, bwrap bool) *Run {
	t.Helper()
	run, err := Prepare(Spec{Repo: f.r, Task: "TASK-001", Worktree: f.wt, Branch: f.branch, Bwrap: bwrap})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	return run
}

// agent is git as the agent runs it: in its worktree, on the run's git
// dir (as the sandbox's .git names it).
func (f *fixture) agent(t testing.TB, run *Run, args ...string) string {
	t.Helper()
	return git(t, f.wt, []string{"GIT_DIR=" + run.GitDir, "GIT_WORK_TREE=" + f.wt}, args...)
}

func (f *fixture) tip(t testing.TB) string {
	return git(t, f.root, nil, "rev-parse", "refs/heads/"+f.branch)
}

func (f *fixture) has(t testing.TB, oid string) bool {
	_, err := gitErr(f.root, nil, "cat-file", "-e", oid)
	return err == nil
}

func refused(t *testing.T, err error, want string) {
	t.Helper()
	var r *Refused
	if !errors.As(err, &r) {
		t.Fatalf("Receive = %v, want a refusal", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("refusal %q does not say %q", err, want)
	}
}

func TestReceiveTakesTheRunsCommitsAndWhatItLeft(t *testing.T) {
	f := newFixture(t)
	run := f.prepare(t, true)
	// The run sees the shared branches and starts clean.
	if got := f.agent(t, run, "rev-parse", "main"); got != f.main {
		t.Fatalf("main in the run = %s, want %s", got, f.main)
	}
	if st := f.agent(t, run, "status", "--porcelain"); st != "" {
		t.Fatalf("the run starts with changes: %q", st)
	}
	os.WriteFile(filepath.Join(f.wt, "a.txt"), []byte("a\n"), 0o644)
	f.agent(t, run, "add", "a.txt")
	f.agent(t, run, "commit", "-qm", "the work")
	tip := f.agent(t, run, "rev-parse", "HEAD")
	os.WriteFile(filepath.Join(f.wt, "left.txt"), []byte("left\n"), 0o644)
	// Garbage the run wrote stays out.
	junk := f.agent(t, run, "hash-object", "-w", "--stdin")
	if f.has(t, tip) {
		t.Fatal("the run's commit reached the shared store before Receive")
	}
	res, err := run.Receive(true, "Title\n\nBurl-Task: TASK-001\n")
	if err != nil {
		t.Fatal(err)
	}
	if res.Tip != tip || res.Head == tip || f.tip(t) != res.Head {
		t.Fatalf("Receive = %+v; branch at %s, run's tip %s", res, f.tip(t), tip)
	}
	if got := git(t, f.root, nil, "log", "-1", "--format=%s|%(trailers:key=Burl-Task,valueonly)", res.Head); got != "Title|TASK-001" {
		t.Fatalf("leftover commit = %q", got)
	}
	if got := git(t, f.root, nil, "show", res.Head+":left.txt"); got != "left" {
		t.Fatalf("left.txt = %q", got)
	}
	if f.has(t, junk) {
		t.Fatal("an unreachable object of the run entered the shared store")
	}
	if st := git(t, f.wt, nil, "status", "--porcelain"); st != "" {
		t.Fatalf("the worktree is not clean after Receive: %q", st)
	}
	if got := git(t, f.root, nil, "rev-parse", "main"); got != f.main {
		t.Fatal("main moved")
	}
	git(t, f.root, nil, "fsck", "--strict", "--no-dangling")
}

func TestReceiveCommitsLeftoversOntoTheTaskBranchWhateverHeadSays(t *testing.T) {
	f := newFixture(t)
	run := f.prepare(t, false)
	// Without bubblewrap the worktree's .git names the run's git dir.
	if got := git(t, f.wt, nil, "rev-parse", "--absolute-git-dir"); got != run.GitDir {
		t.Fatalf("git dir in the worktree = %s, want %s", got, run.GitDir)
	}
	os.WriteFile(filepath.Join(run.GitDir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(f.wt, "out.txt"), []byte("x\n"), 0o644)
	res, err := run.Receive(true, "Title\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := git(t, f.root, nil, "rev-parse", "main"); got != f.main {
		t.Fatal("main moved")
	}
	if f.tip(t) != res.Head || res.Head == f.main {
		t.Fatalf("task branch at %s, Receive %+v", f.tip(t), res)
	}
	if got := git(t, f.wt, nil, "rev-parse", "--absolute-git-dir"); got != run.Admin {
		t.Fatalf("the worktree's git dir after the run = %s, want %s", got, run.Admin)
	}
}

// A run that left nothing gets no commit; what it left is committed as
// commit-tree would: the message byte for byte (a # line, spaces at line
// ends), unsigned whatever commit.gpgsign says, no hook run, no shared ref
// but the task branch moved, and burl's own git dir for it gone after.
func TestReceiveCommitsWhatWasLeftVerbatimAndNothingWhenNothingWas(t *testing.T) {
	f := newFixture(t)
	run := f.prepare(t, true)
	res, err := run.Receive(true, "Nothing\n")
	if err != nil {
		t.Fatal(err)
	}
	if res.Head != f.main || f.tip(t) != f.main {
		t.Fatalf("a run that left nothing: Receive %+v, branch at %s, want %s", res, f.tip(t), f.main)
	}

	f = newFixture(t)
	run = f.prepare(t, true)
	mark := filepath.Join(t.TempDir(), "hook-ran")
	hooks := filepath.Join(f.root, ".git", "hooks")
	for _, h := range []string{"pre-commit", "commit-msg", "post-commit"} {
		os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\necho "+h+" >>"+mark+"\n"), 0o755)
	}
	git(t, f.root, nil, "config", "commit.gpgsign", "true")
	git(t, f.root, nil, "config", "gpg.program", "false")
	git(t, f.root, nil, "config", "commit.template", filepath.Join(f.root, "no-such-template"))
	os.WriteFile(filepath.Join(f.wt, "left.txt"), []byte("left\n"), 0o644)
	msg := "Title  \n\n# not a comment\nBurl-Task: TASK-001\n"
	res, err = run.Receive(true, msg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Head == f.main || f.tip(t) != res.Head {
		t.Fatalf("Receive %+v, branch at %s", res, f.tip(t))
	}
	raw := git(t, f.root, nil, "cat-file", "commit", res.Head)
	if _, body, _ := strings.Cut(raw, "\n\n"); body+"\n" != msg || strings.Contains(raw, "gpgsig") {
		t.Fatalf("the commit of what was left:\n%s", raw)
	}
	if got := git(t, f.root, nil, "rev-parse", res.Head+"^"); got != f.main {
		t.Fatalf("its parent = %s, want %s", got, f.main)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("a hook ran")
	}
	if got := git(t, f.root, nil, "rev-parse", "main"); got != f.main {
		t.Fatal("main moved")
	}
	if _, err := os.Stat(filepath.Join(run.Dir(), "intake")); !os.IsNotExist(err) {
		t.Fatalf("burl's git dir for the commit is left: %v", err)
	}
	if st := git(t, f.wt, nil, "status", "--porcelain"); st != "" {
		t.Fatalf("the worktree is not clean after Receive: %q", st)
	}
}

func TestCloseRestoresTheGitfileOverWhateverTheRunLeft(t *testing.T) {
	for _, kind := range []string{"dir", "symlink", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			f := newFixture(t)
			run := f.prepare(t, false)
			victim := filepath.Join(t.TempDir(), "victim")
			os.WriteFile(victim, []byte("keep\n"), 0o644)
			p := filepath.Join(f.wt, ".git")
			os.Remove(p)
			switch kind {
			case "dir":
				os.MkdirAll(filepath.Join(p, "objects"), 0o755)
			case "symlink":
				os.Symlink(victim, p)
			case "fifo":
				syscall.Mkfifo(p, 0o644)
			}
			if err := run.Close(); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(victim); string(data) != "keep\n" {
				t.Fatalf("the link's target was written: %q", data)
			}
			if got := git(t, f.wt, nil, "rev-parse", "--absolute-git-dir"); got != run.Admin {
				t.Fatalf("git dir = %s", got)
			}
			if _, err := os.Stat(run.Dir()); !os.IsNotExist(err) {
				t.Fatal("the run directory is left")
			}
		})
	}
}

// hostile makes the run's branch name what plant returns, after plant
// wrote what it likes into the run's git dir.
func hostile(t *testing.T, plant func(f *fixture, run *Run) string) (*fixture, *Run, error) {
	f := newFixture(t)
	run := f.prepare(t, true)
	before := f.tip(t)
	tip := plant(f, run)
	if tip != "" {
		os.WriteFile(filepath.Join(run.GitDir, "refs", "heads", f.branch), []byte(tip+"\n"), 0o644)
	}
	done := make(chan error, 1)
	go func() {
		_, err := run.Receive(true, "Title\n")
		done <- err
	}()
	select {
	case err := <-done:
		if f.tip(t) != before && err != nil {
			t.Fatalf("the task branch moved although Receive failed: %v", err)
		}
		return f, run, err
	case <-time.After(20 * time.Second):
		t.Fatal("Receive hangs")
	}
	return nil, nil, nil
}

// looseObject writes an object of type kind with body into the run's
// store under name (its true id when name is "").
func looseObject(t *testing.T, run *Run, kind string, body []byte, name string) string {
	t.Helper()
	raw := append([]byte(fmt.Sprintf("%s %d\x00", kind, len(body))), body...)
	sum := sha1.Sum(raw)
	if name == "" {
		name = hex.EncodeToString(sum[:])
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(raw)
	w.Close()
	p := filepath.Join(run.GitDir, "objects", name[:2], name[2:])
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, z.Bytes(), 0o444); err != nil {
		t.Fatal(err)
	}
	return name
}

func treeEntry(mode, name, oid string) []byte {
	b, _ := hex.DecodeString(oid)
	return append([]byte(mode+" "+name+"\x00"), b...)
}

func commitOn(t *testing.T, f *fixture, run *Run, tree, parent string) string {
	body := fmt.Sprintf("tree %s\nparent %s\nauthor a <a@e> 1 +0000\ncommitter a <a@e> 1 +0000\n\nx\n", tree, parent)
	return looseObject(t, run, "commit", []byte(body), "")
}

func TestReceiveRefusesHostileStores(t *testing.T) {
	cases := map[string]struct {
		plant func(f *fixture, run *Run) string
		says  string
	}{
		"a symlink planted as the branch's object": {func(f *fixture, run *Run) string {
			blob := looseObject(t, run, "blob", []byte("x"), "")
			tree := looseObject(t, run, "tree", treeEntry("100644", "x", blob), "")
			c := commitOn(t, f, run, tree, f.main)
			p := filepath.Join(run.GitDir, "objects", c[:2], c[2:])
			os.Remove(p)
			os.Symlink(filepath.Join(f.root, ".git", "config"), p)
			return c
		}, "cannot be copied"},
		"a FIFO planted as an object": {func(f *fixture, run *Run) string {
			p := filepath.Join(run.GitDir, "objects", "aa", strings.Repeat("b", 38))
			os.MkdirAll(filepath.Dir(p), 0o755)
			syscall.Mkfifo(p, 0o644)
			blob := looseObject(t, run, "blob", []byte("x"), "")
			tree := looseObject(t, run, "tree", treeEntry("100644", "x", blob), "")
			return commitOn(t, f, run, tree, f.main)
		}, "cannot be copied"},
		"a tree with a .git entry": {func(f *fixture, run *Run) string {
			blob := looseObject(t, run, "blob", []byte("[core]\n\thooksPath = /tmp\n"), "")
			tree := looseObject(t, run, "tree", treeEntry("100644", ".git", blob), "")
			return commitOn(t, f, run, tree, f.main)
		}, "malformed"},
		"a tree with a .. entry": {func(f *fixture, run *Run) string {
			blob := looseObject(t, run, "blob", []byte("x"), "")
			sub := looseObject(t, run, "tree", treeEntry("100644", "x", blob), "")
			tree := looseObject(t, run, "tree", treeEntry("40000", "..", sub), "")
			return commitOn(t, f, run, tree, f.main)
		}, "malformed"},
		"a mislabelled loose object": {func(f *fixture, run *Run) string {
			blob := looseObject(t, run, "blob", []byte("x"), "")
			// The tree named X holds another tree's bytes.
			other := looseObject(t, run, "blob", []byte("y"), "")
			fake := strings.Repeat("c", 40)
			looseObject(t, run, "tree", append(treeEntry("100644", "x", blob), treeEntry("100644", "y", other)...), fake)
			return commitOn(t, f, run, fake, f.main)
		}, "cccccccccc"},
		"a missing parent": {func(f *fixture, run *Run) string {
			blob := looseObject(t, run, "blob", []byte("x"), "")
			tree := looseObject(t, run, "tree", treeEntry("100644", "x", blob), "")
			return commitOn(t, f, run, tree, strings.Repeat("d", 40))
		}, "not complete"},
		"a blob as the tip": {func(f *fixture, run *Run) string {
			return looseObject(t, run, "blob", []byte("not a commit"), "")
		}, "not a commit"},
		"a symbolic ref as the tip": {func(f *fixture, run *Run) string {
			os.WriteFile(filepath.Join(run.GitDir, "refs", "heads", f.branch), []byte("ref: refs/heads/main\n"), 0o644)
			return ""
		}, "not one object id"},
		"a FIFO as the branch's ref": {func(f *fixture, run *Run) string {
			p := filepath.Join(run.GitDir, "refs", "heads", f.branch)
			os.Remove(p)
			syscall.Mkfifo(p, 0o644)
			return ""
		}, "cannot be read as a file"},
		"refs/heads a link elsewhere": {func(f *fixture, run *Run) string {
			elsewhere := t.TempDir()
			os.WriteFile(filepath.Join(elsewhere, f.branch), []byte(f.main+"\n"), 0o644)
			heads := filepath.Join(run.GitDir, "refs", "heads")
			os.RemoveAll(heads)
			os.Symlink(elsewhere, heads)
			return ""
		}, "cannot be read as a file"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f, run, err := hostile(t, c.plant)
			refused(t, err, c.says)
			// Nothing came into the shared store.
			packs, _ := filepath.Glob(filepath.Join(f.root, ".git", "objects", "pack", "*.pack"))
			if len(packs) > 0 {
				t.Fatalf("a pack entered the shared store: %v", packs)
			}
			_ = run
			git(t, f.root, nil, "fsck", "--strict", "--no-dangling")
		})
	}
}

func TestReceiveIgnoresNamesThatAreNotObjects(t *testing.T) {
	f, run, err := hostile(t, func(f *fixture, run *Run) string {
		os.WriteFile(filepath.Join(f.wt, "a.txt"), []byte("a\n"), 0o644)
		f.agent(t, run, "add", "a.txt")
		f.agent(t, run, "commit", "-qm", "work")
		objs := filepath.Join(run.GitDir, "objects")
		os.MkdirAll(filepath.Join(objs, "zz"), 0o755)
		os.WriteFile(filepath.Join(objs, "zz", strings.Repeat("0", 38)), []byte("junk"), 0o644)
		os.WriteFile(filepath.Join(objs, "pack", "evil.pack"), []byte("junk"), 0o644)
		os.WriteFile(filepath.Join(objs, "info", "alternates"), []byte("/nonexistent\n"), 0o644)
		os.WriteFile(filepath.Join(run.GitDir, "config"), []byte("[core]\n\tfsmonitor = touch /tmp/pwned\n"), 0o644)
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := git(t, f.root, nil, "log", "-1", "--format=%s", f.tip(t)); got != "work" {
		t.Fatalf("tip = %q", got)
	}
	_ = run
}

func TestReceiveReadsPackedRefsAndPacks(t *testing.T) {
	f := newFixture(t)
	run := f.prepare(t, true)
	for i := 0; i < 3; i++ {
		os.WriteFile(filepath.Join(f.wt, fmt.Sprint(i)), []byte(fmt.Sprint(i)), 0o644)
		f.agent(t, run, "add", "-A")
		f.agent(t, run, "commit", "-qm", fmt.Sprint(i))
	}
	tip := f.agent(t, run, "rev-parse", "HEAD")
	f.agent(t, run, "repack", "-q", "-a", "-d", "-l")
	f.agent(t, run, "pack-refs", "--all")
	if _, err := os.Lstat(filepath.Join(run.GitDir, "refs", "heads", f.branch)); !os.IsNotExist(err) {
		t.Fatal("pack-refs left the loose ref")
	}
	res, err := run.Receive(false, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Tip != tip || f.tip(t) != tip || res.Objects != 9 {
		t.Fatalf("Receive = %+v, tip %s", res, tip)
	}
}

func TestReceiveRefusesWhenTheBranchMovedMeanwhile(t *testing.T) {
	f := newFixture(t)
	run := f.prepare(t, true)
	os.WriteFile(filepath.Join(f.wt, "a.txt"), []byte("a\n"), 0o644)
	f.agent(t, run, "add", "a.txt")
	f.agent(t, run, "commit", "-qm", "work")
	other := git(t, f.root, nil, "commit-tree", "-p", f.main, "-m", "elsewhere", f.main+"^{tree}")
	git(t, f.root, nil, "update-ref", "refs/heads/"+f.branch, other)
	if _, err := run.Receive(false, ""); err == nil || !strings.Contains(err.Error(), "moved during the run") {
		t.Fatalf("Receive = %v", err)
	}
	if f.tip(t) != other {
		t.Fatal("the branch was moved over")
	}
}

func TestSweepTakesInADeadWatchersRunAndRestoresTheGitfile(t *testing.T) {
	f := newFixture(t)
	run := f.prepare(t, false)
	os.WriteFile(filepath.Join(f.wt, "a.txt"), []byte("a\n"), 0o644)
	git(t, f.wt, nil, "add", "a.txt")
	git(t, f.wt, nil, "commit", "-qm", "before the crash")
	tip := git(t, f.wt, nil, "rev-parse", "HEAD")
	// A watcher that is gone: its run.json names a pid no process has.
	info := run.Info
	info.WatcherPID, info.WatcherStart = 1<<22+7, "1"
	dead := filepath.Join(f.r.RunsDir(), fmt.Sprintf("TASK-001-%d-1", info.WatcherPID))
	if err := os.Rename(run.Dir(), dead); err != nil {
		t.Fatal(err)
	}
	info.GitDir = repo.RunGitDir(dead)
	writeJSON(t, filepath.Join(dead, runJSON), info)
	replaceFile(f.wt, ".git", []byte("gitdir: "+info.GitDir+"\n"))
	notes := Sweep(f.r, f.wt)
	if f.tip(t) != tip {
		t.Fatalf("the dead run's commit was not taken in; notes %q", notes)
	}
	if got := git(t, f.wt, nil, "rev-parse", "--absolute-git-dir"); got != run.Admin {
		t.Fatalf("git dir = %s", got)
	}
	if ents, _ := os.ReadDir(f.r.RunsDir()); len(ents) != 0 {
		t.Fatalf("run directories left: %v", ents)
	}
}

func writeJSON(t testing.TB, p string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkPrepareReceive is the sandbox's own cost per run: the run's
// git dir made, one commit of the agent's taken in through the
// quarantine, and a file it left committed.
func BenchmarkPrepareReceive(b *testing.B) {
	f := newFixture(b)
	for i := 0; i < b.N; i++ {
		run, err := Prepare(Spec{Repo: f.r, Task: "TASK-001", Worktree: f.wt, Branch: f.branch, Bwrap: true})
		if err != nil {
			b.Fatal(err)
		}
		// The agent's own work is not the sandbox's time.
		b.StopTimer()
		os.WriteFile(filepath.Join(f.wt, "n.txt"), []byte(fmt.Sprint(i)), 0o644)
		f.agent(b, run, "add", "n.txt")
		f.agent(b, run, "commit", "-qm", "n")
		os.WriteFile(filepath.Join(f.wt, "left.txt"), []byte(fmt.Sprint(i)), 0o644)
		b.StartTimer()
		if _, err := run.Receive(true, "left\n"); err != nil {
			b.Fatal(err)
		}
		run.Close()
	}
}

// Changed names a HEAD of the run's git dir left off the task branch, in
// both modes; without bubblewrap also the refs the run moved there (its
// own branch is its work, not a change), less those explain gives away.
func TestChangedNamesHeadAndUnconfinedRefs(t *testing.T) {
	for _, bwrap := range []bool{true, false} {
		f := newFixture(t)
		run := f.prepare(t, bwrap)
		os.WriteFile(filepath.Join(f.wt, "a.txt"), []byte("a\n"), 0o644)
		f.agent(t, run, "add", "a.txt")
		f.agent(t, run, "commit", "-qm", "the work")
		if c := run.Changed(nil); len(c) != 0 {
			t.Fatalf("bwrap %v: a run that only committed changed %q", bwrap, c)
		}
		f.agent(t, run, "update-ref", "refs/heads/main", "HEAD")
		f.agent(t, run, "tag", "v9")
		f.agent(t, run, "symbolic-ref", "HEAD", "refs/heads/main")
		got := strings.Join(run.Changed(func(c runguard.RefChange) bool { return c.Name == "refs/tags/v9" }), "\n")
		if !strings.Contains(got, "HEAD changed (it names ref: refs/heads/main") {
			t.Fatalf("bwrap %v: HEAD off the branch not named: %q", bwrap, got)
		}
		if moved := strings.Contains(got, "refs/heads/main moved"); moved == bwrap {
			t.Fatalf("bwrap %v: main moved in the run's git dir named %v: %q", bwrap, moved, got)
		}
		if strings.Contains(got, "v9") {
			t.Fatalf("bwrap %v: a ref explain gives away named: %q", bwrap, got)
		}
	}
}
