package hook

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/burl-dev/burl"
	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitx"
)

func TestParsePush(t *testing.T) {
	zero := strings.Repeat("0", 40)
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	in := "refs/heads/task-001-x " + a + " refs/heads/task-001-x " + zero + "\n" +
		"HEAD " + b + " refs/heads/task-002-y " + a + "\n" +
		"(delete) " + zero + " refs/heads/old " + b + "\n"
	refs, err := ParsePush(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 3 {
		t.Fatalf("got %d refs", len(refs))
	}
	if got := refs[0].Branches(); !reflect.DeepEqual(got, []string{"task-001-x"}) {
		t.Errorf("same local and remote branch: %v", got)
	}
	if got := refs[1].Branches(); !reflect.DeepEqual(got, []string{"task-002-y"}) {
		t.Errorf("HEAD:task-002-y names the remote branch only: %v", got)
	}
	if refs[0].Deletion() || refs[1].Deletion() || !refs[2].Deletion() {
		t.Errorf("only the (delete) line is a deletion: %+v", refs)
	}
	if _, err := ParsePush(strings.NewReader("refs/heads/x " + a + "\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a short line must be refused with its number, got %v", err)
	}
}

func TestWithTrailer(t *testing.T) {
	dir := gittest.NewRepo(t)
	g := gitx.In(dir)
	write := func(msg string) string {
		p := filepath.Join(t.TempDir(), "COMMIT_EDITMSG")
		if err := os.WriteFile(p, []byte(msg), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, c := range []struct{ name, comment, in, want string }{
		{"adds", "", "Add jump\n", "Add jump\n\nBurl-Task: TASK-001\n"},
		{"keeps an existing one", "", "Add jump\n\nBurl-Task: TASK-001\n", "Add jump\n\nBurl-Task: TASK-001\n"},
		{"does not add a second value", "", "Add jump\n\nBurl-Task: TASK-009\n", "Add jump\n\nBurl-Task: TASK-009\n"},
		{"empty message stays empty so git aborts", "", "\n# Please enter the commit message\n", "\n# Please enter the commit message\n"},
		{"blank lines and comments only", "", " \t\r\n#x\n\n", " \t\r\n#x\n\n"},
		{"empty above the scissors", "", "# c\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n+y\n",
			"# c\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n+y\n"},
		{"another comment character", ";", "; Please enter\n;\n", "; Please enter\n;\n"},
		{"# is text when it is not the comment character", ";", "#123 fixed\n", "#123 fixed\n\nBurl-Task: TASK-001\n"},
		{"auto asks git", "auto", "Add jump\n", "Add jump\n\nBurl-Task: TASK-001\n"},
		{"auto, empty", "auto", "\n# Please enter the commit message\n", "\n# Please enter the commit message\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(c.in)
			tr, err := AddTrailer(g, p, "TASK-001")
			if err != nil {
				t.Fatal(err)
			}
			got, err := tr.Message(g, c.comment)
			if err != nil {
				t.Fatal(err)
			}
			if got == nil {
				got = []byte(read(p))
			}
			if string(got) != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if read(p) != c.in {
				t.Errorf("WithTrailer changed the file")
			}
		})
	}
}

func TestDirIsSharedByLinkedWorktreesAndHonoursHooksPath(t *testing.T) {
	dir := gittest.NewRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	gittest.Git(t, dir, "worktree", "add", "-q", "-b", "other", wt)
	main, err := Dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	linked, err := Dir(wt)
	if err != nil {
		t.Fatal(err)
	}
	if main != linked || main != filepath.Join(gittest.Git(t, dir, "rev-parse", "--path-format=absolute", "--git-common-dir"), "hooks") {
		t.Errorf("main %s, linked %s: both must be <common dir>/hooks", main, linked)
	}
	custom := filepath.Join(t.TempDir(), "myhooks")
	gittest.Git(t, dir, "config", "core.hooksPath", custom)
	if got, _ := Dir(wt); got != custom {
		t.Errorf("with core.hooksPath: %s, want %s", got, custom)
	}
}

func writeHook(t *testing.T, p, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func states(t *testing.T, dir string) map[string]State {
	t.Helper()
	rep, err := Inspect(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]State{}
	for _, s := range rep.Hooks {
		m[s.Name] = s.State
	}
	return m
}

func TestInstallChainsForeignHookAndUninstallRestoresIt(t *testing.T) {
	dir := gittest.NewRepo(t)
	hd, _ := Dir(dir)
	foreign := filepath.Join(hd, "commit-msg")
	body := "#!/bin/sh\n# the team's own check\ngrep -q JIRA \"$1\"\n"
	writeHook(t, foreign, body, 0o750)

	rep, err := Install(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Hooks[0].Did != "chained" || rep.Hooks[1].Did != "installed" {
		t.Errorf("install did %+v", rep.Hooks)
	}
	shim, _ := burl.Hooks.ReadFile("hooks/commit-msg")
	if got, _ := os.ReadFile(foreign); !bytes.Equal(got, shim) {
		t.Errorf("commit-msg is not burl's shim")
	}
	if st, _ := os.Stat(foreign); st.Mode().Perm() != 0o755 {
		t.Errorf("shim mode %v, want 0755 (git only runs executable hooks)", st.Mode().Perm())
	}
	if got, _ := os.ReadFile(foreign + ChainedSuffix); string(got) != body {
		t.Errorf("the foreign hook was not moved aside intact: %q", got)
	}
	if got := states(t, dir); got["commit-msg"] != Chained || got["pre-push"] != Installed {
		t.Errorf("status %v", got)
	}

	again, err := Install(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range again.Hooks {
		if a.Did != "unchanged" {
			t.Errorf("re-install must be a no-op, %s: %s", a.Name, a.Did)
		}
	}
	if got, _ := os.ReadFile(foreign + ChainedSuffix); string(got) != body {
		t.Errorf("re-install touched the chained hook: %q", got)
	}

	if _, err := Uninstall(dir); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(foreign)
	st, _ := os.Stat(foreign)
	if string(got) != body || st.Mode().Perm() != 0o750 {
		t.Errorf("uninstall restored %q mode %v, want the original bytes and mode 0750", got, st.Mode().Perm())
	}
	if exists(foreign+ChainedSuffix) || exists(filepath.Join(hd, "pre-push")) {
		t.Errorf("uninstall left burl's files behind")
	}
	if got := states(t, dir); got["commit-msg"] != Foreign || got["pre-push"] != Absent {
		t.Errorf("status after uninstall %v", got)
	}
}

func TestInstallUpdatesAnOlderShim(t *testing.T) {
	dir := gittest.NewRepo(t)
	hd, _ := Dir(dir)
	writeHook(t, filepath.Join(hd, "pre-push"), "#!/bin/sh\n"+Marker+"\nexec git burl hook pre-push \"$@\" # older\n", 0o755)
	rep, err := Install(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Hooks[1].Did != "updated" {
		t.Errorf("an older burl shim must be updated, not chained: %+v", rep.Hooks[1])
	}
	if exists(filepath.Join(hd, "pre-push"+ChainedSuffix)) {
		t.Errorf("burl chained its own hook")
	}
}

func TestInstallRefusesToLoseAChainedHookUnlessForced(t *testing.T) {
	dir := gittest.NewRepo(t)
	hd, _ := Dir(dir)
	p := filepath.Join(hd, "commit-msg")
	writeHook(t, p, "#!/bin/sh\necho first\n", 0o755)
	if _, err := Install(dir, false); err != nil {
		t.Fatal(err)
	}
	// Another tool replaces burl's shim with its own.
	writeHook(t, p, "#!/bin/sh\necho second\n", 0o755)

	_, err := Install(dir, false)
	var e *errs.Error
	if !errors.As(err, &e) || !strings.Contains(e.Fix, "--force") {
		t.Fatalf("want a refusal whose fix names --force, got %v", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "#!/bin/sh\necho second\n" {
		t.Errorf("a refused install changed the hook: %q", got)
	}

	rep, err := Install(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Hooks[0]
	if a.Did != "chained" || a.Kept != p+ChainedSuffix+".1" {
		t.Errorf("--force: %+v", a)
	}
	if got, _ := os.ReadFile(p + ChainedSuffix); string(got) != "#!/bin/sh\necho second\n" {
		t.Errorf("--force must chain the current hook, chained %q", got)
	}
	if got, _ := os.ReadFile(a.Kept); string(got) != "#!/bin/sh\necho first\n" {
		t.Errorf("--force must keep the older chained hook, kept %q", got)
	}
}

func TestUninstallLeavesForeignHooksAlone(t *testing.T) {
	dir := gittest.NewRepo(t)
	hd, _ := Dir(dir)
	p := filepath.Join(hd, "pre-push")
	writeHook(t, p, "#!/bin/sh\nexit 0\n", 0o755)
	rep, err := Uninstall(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Hooks[1].Did != "left" {
		t.Errorf("uninstall did %+v", rep.Hooks[1])
	}
	if got, _ := os.ReadFile(p); string(got) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("uninstall touched a foreign hook: %q", got)
	}
}
