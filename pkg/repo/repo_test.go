package repo

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/errs"
)

func TestResolveFromAnywhere(t *testing.T) {
	root := gittest.NewRepo(t)
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(filepath.Dir(root), "linked")
	gittest.Git(t, root, "worktree", "add", "-q", linked, "-b", "feature")
	inner := filepath.Join(root, ".burl")
	gittest.Git(t, root, "worktree", "add", "-q", "--detach", inner)

	for _, dir := range []string{root, sub, linked, inner} {
		r, err := Resolve(dir)
		if err != nil {
			t.Fatalf("Resolve(%s): %v", dir, err)
		}
		if r.Root != root || r.Worktree != filepath.Join(root, ".burl") || r.Branch != "burl" {
			t.Errorf("Resolve(%s) = root %s, worktree %s, branch %s", dir, r.Root, r.Worktree, r.Branch)
		}
		if r.WorkflowDir() != filepath.Join(root, ".burl", ".workflow") || r.WorktreesDir() != filepath.Join(root, ".worktrees") {
			t.Errorf("dirs %s %s", r.WorkflowDir(), r.WorktreesDir())
		}
	}
	r, _ := Resolve(linked)
	if r.Toplevel != linked {
		t.Errorf("Toplevel from a linked worktree = %s", r.Toplevel)
	}
}

func TestResolveOutsideARepository(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	_, err := Resolve(dir)
	if errs.KindOf(err) != errs.User || !strings.Contains(err.Error(), "not inside a git repository") {
		t.Errorf("Resolve outside a repo = %v", err)
	}
}

func TestRel(t *testing.T) {
	root := gittest.NewRepo(t)
	r, err := Resolve(root)
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		filepath.Join(root, ".burl", ".workflow", "READY"): ".burl/.workflow/READY",
		filepath.Join(root, "..dotdot-file"):               "..dotdot-file",
		root:                                               ".",
		filepath.Join(filepath.Dir(root), "elsewhere"):     filepath.Join(filepath.Dir(root), "elsewhere"),
	} {
		if got := r.Rel(in); got != want {
			t.Errorf("Rel(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestBootstrapSettings(t *testing.T) {
	root := gittest.NewRepo(t)
	gittest.Git(t, root, "config", "burl.branch", "workflow/state")
	gittest.Git(t, root, "config", "burl.worktree", "tools/wf")
	r, err := Resolve(root)
	if err != nil {
		t.Fatal(err)
	}
	if r.Branch != "workflow/state" || r.Worktree != filepath.Join(root, "tools", "wf") {
		t.Errorf("branch %s worktree %s", r.Branch, r.Worktree)
	}

	// A directory whose name merely starts with ".." is inside the repo.
	gittest.Git(t, root, "config", "burl.worktree", "..wf")
	if r, err := Resolve(root); err != nil || r.Worktree != filepath.Join(root, "..wf") {
		t.Errorf("burl.worktree ..wf: %v", err)
	}

	for key, bad := range map[string][]string{
		// A leading "-" would be read as an option by git worktree add/branch.
		"burl.branch":   {"-D", "a..b", "has space", "x~1", "a:b", "refs/../x"},
		"burl.worktree": {"../outside", "/abs", ".", "a/../../x"},
	} {
		for _, v := range bad {
			gittest.Git(t, root, "config", "burl.branch", "burl")
			gittest.Git(t, root, "config", "burl.worktree", ".burl")
			gittest.Git(t, root, "config", key, v)
			_, err := Resolve(root)
			if errs.KindOf(err) != errs.User || !strings.Contains(err.Error(), key) {
				t.Errorf("git config %s %q: Resolve = %v, want a user error naming %s", key, v, err, key)
			}
		}
	}
}

// HooksDir answers what git itself does, for every form core.hooksPath
// takes: unset, absolute, relative, ~/.
func TestHooksDirIsWhereGitRunsHooks(t *testing.T) {
	root := gittest.NewRepo(t)
	t.Setenv("HOME", t.TempDir())
	for _, v := range []string{"", "/tmp/elsewhere/hooks", "tools/hooks", "~/hooks", "~"} {
		if v != "" {
			gittest.Git(t, root, "config", "core.hooksPath", v)
		}
		want := strings.TrimSpace(gittest.Git(t, root, "rev-parse", "--path-format=absolute", "--git-path", "hooks"))
		r, err := Resolve(root)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.HooksDir(); got != filepath.Clean(want) {
			t.Errorf("core.hooksPath %q: HooksDir = %s, git says %s", v, got, want)
		}
	}
}

// NeedsMaintenance spawns git maintenance exactly when git's own test for
// its default gc task could pass, and always once the user configured
// maintenance.
func TestNeedsMaintenanceFollowsGitsAutoTest(t *testing.T) {
	root := gittest.NewRepo(t)
	resolve := func() *Repo {
		t.Helper()
		r, err := Resolve(root)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if resolve().NeedsMaintenance() {
		t.Fatal("a fresh repository needs maintenance")
	}
	dir17 := filepath.Join(root, ".git", "objects", "17")
	if err := os.MkdirAll(dir17, 0o755); err != nil {
		t.Fatal(err)
	}
	// gc.auto 6700: more than 27 loose objects in objects/17.
	for i := 0; i < 28; i++ {
		name := strings.Repeat("0", 36) + string("0123456789abcdef"[i%16]) + string("0123456789abcdef"[i/16])
		if err := os.WriteFile(filepath.Join(dir17, name), nil, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if !resolve().NeedsMaintenance() {
		t.Error("28 loose objects in objects/17 (over 6700/256) need no maintenance")
	}
	gittest.Git(t, root, "config", "gc.auto", "0")
	if resolve().NeedsMaintenance() {
		t.Error("gc.auto 0 still asks for maintenance")
	}
	gittest.Git(t, root, "config", "gc.auto", "20k")
	if resolve().NeedsMaintenance() {
		t.Error("gc.auto 20k (80 per fanout folder) asks for maintenance at 28")
	}
	gittest.Git(t, root, "config", "maintenance.strategy", "incremental")
	if !resolve().NeedsMaintenance() {
		t.Error("a configured maintenance is not always asked")
	}
}

// The credential helpers and remote URLs come with the bootstrap
// settings, in git's order, also from the answer kept on disk; an answer
// kept for other keys (an earlier burl's, without them) is not taken.
func TestCredentialSettingsWithTheBootstrap(t *testing.T) {
	root := gittest.NewRepo(t)
	gittest.Git(t, root, "config", "credential.helper", "store --file ~/creds")
	gittest.Git(t, root, "config", "--add", "credential.https://Example.com.helper", "")
	gittest.Git(t, root, "remote", "add", "origin", "/srv/origin.git")
	gittest.Git(t, root, "config", "remote.origin.pushurl", "/srv/push.git")
	want := []Setting{{"credential.helper", "store --file ~/creds"}, {"credential.https://Example.com.helper", ""},
		{"remote.origin.url", "/srv/origin.git"}, {"remote.origin.pushurl", "/srv/push.git"}}
	same := func(got []Setting) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range got {
			if got[i] != want[i] {
				return false
			}
		}
		return true
	}
	d := found{common: filepath.Join(root, ".git"), top: root, ok: true}
	for _, from := range []string{"git", "the kept answer"} {
		cacheMu.Lock()
		cache = map[string]cacheEntry{}
		cacheMu.Unlock()
		if from == "the kept answer" {
			if _, ok := keptBootstrap(d, bootstrapKey(d)); !ok {
				t.Fatal("no answer kept")
			}
		}
		r, err := Resolve(root)
		if err != nil {
			t.Fatal(err)
		}
		if !same(r.CredentialSettings()) {
			t.Errorf("from %s: %q, want %q", from, r.CredentialSettings(), want)
		}
	}
	// An answer kept under the same files but for other keys.
	b, err := os.ReadFile(bootstrapFile(d))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, f := range configFiles(&Repo{CommonDir: d.common, Toplevel: d.top}) {
		c, _ := os.ReadFile(f)
		h.Write([]byte(f + "\x00" + strconv.Itoa(len(c)) + "\x00"))
		h.Write(c)
	}
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_CONFIG") {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	h.Write([]byte(strings.Join(env, "\x00")))
	if strings.HasPrefix(string(b), hex.EncodeToString(h.Sum(nil))) {
		t.Error("the kept answer's key leaves out the keys asked for")
	}
}
