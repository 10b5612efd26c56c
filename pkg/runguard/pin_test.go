package runguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// pinHome is a HOME whose git config has what a flattening could get
// wrong: quotes and backslashes, a value with leading spaces and a
// comment character, a key with no value (true) and one with an empty
// value (false), a subsection with a dot and a quote, a multi-valued key,
// an include and an includeIf for this repository, and an include of a
// file that does not exist.
func pinHome(t *testing.T) (home, repo string) {
	t.Helper()
	tmp := t.TempDir()
	home, repo = filepath.Join(tmp, "home"), filepath.Join(tmp, "repo")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	os.Unsetenv("XDG_CONFIG_HOME")
	os.Unsetenv("GIT_CONFIG_GLOBAL")
	os.Unsetenv("GIT_ATTR_NOSYSTEM")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	cfg := `[user]
	name = A "quoted" \\ name
[core]
	bool
	empty =
	sp = "  lead; # x"
	excludesFile = ~/my-ignore
[includeIf "gitdir:` + repo + `/"]
	path = inc
[include]
	path = missing
[a "sub.x\"y"]
	k = v1
	k = v2
	nl = "one\ntwo\tthree"
`
	write(t, filepath.Join(home, ".gitconfig"), cfg)
	write(t, filepath.Join(home, "inc"), "[inc]\n\tx = 1\n")
	write(t, filepath.Join(home, "my-ignore"), "*.secret\n")
	write(t, filepath.Join(home, ".config", "git", "attributes"), "*.bin binary\n")
	return home, repo
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func globalList(t *testing.T, repo string, env ...string) []string {
	t.Helper()
	cmd := exec.Command("git", "config", "--list", "--show-scope", "-z")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	parts := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for i := 0; i+1 < len(parts); i += 2 {
		if parts[i] == "global" && !strings.HasPrefix(parts[i+1], "include") && !strings.HasPrefix(parts[i+1], "core.attributesfile") && !strings.HasPrefix(parts[i+1], "core.excludesfile") {
			got = append(got, parts[i+1])
		}
	}
	return got
}

func TestPinReadsBackAsGitReadTheOriginal(t *testing.T) {
	home, repo := pinHome(t)
	want := globalList(t, repo)
	p, err := PinGitConfig(repo, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got := globalList(t, repo, p.Env()...)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pinned config reads\n%q\nwant\n%q", got, want)
	}
	for _, w := range []string{"inc.x\n1", "core.bool", "core.empty\n", "core.sp\n  lead; # x", "a.sub.x\"y.nl\none\ntwo\tthree"} {
		if !contains(got, w) {
			t.Errorf("missing %q in %q", w, got)
		}
	}
	// The excludes and attributes named (or defaulted) are copied.
	if b, _ := os.ReadFile(filepath.Join(p.Dir, pinnedExcludes)); string(b) != "*.secret\n" {
		t.Errorf("pinned excludes = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(p.Dir, pinnedAttrs)); !strings.Contains(string(b), "*.bin binary") {
		t.Errorf("pinned attributes = %q", b)
	}
	for _, s := range []string{".gitconfig", "inc", "missing", "my-ignore", ".config/git/config", ".config/git/attributes"} {
		if !contains(p.Sources(), filepath.Join(home, s)) {
			t.Errorf("source %s not watched: %q", s, p.Sources())
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestPinChangesNamesAndPutsBack(t *testing.T) {
	home, repo := pinHome(t)
	p, err := PinGitConfig(repo, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if c, _ := p.Changes(); len(c) != 0 {
		t.Fatalf("changes before anything changed: %q", c)
	}
	orig, _ := os.ReadFile(filepath.Join(home, ".gitconfig"))
	write(t, filepath.Join(home, ".gitconfig"), string(orig)+"[commit]\n\tgpgSign = true\n")
	write(t, filepath.Join(home, "missing"), "[gpg]\n\tprogram = evil\n")
	write(t, filepath.Join(p.Dir, pinnedConfig), "[core]\n\tfsmonitor = evil\n")
	c, undone := p.Changes()
	if !undone || len(c) != 3 {
		t.Fatalf("changes = %q (undone %v)", c, undone)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".gitconfig")); string(b) != string(orig) {
		t.Errorf("not put back: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, "missing")); err == nil {
		t.Errorf("a created include was left")
	}
	if b, _ := os.ReadFile(filepath.Join(p.Dir, pinnedConfig)); strings.Contains(string(b), "evil") {
		t.Errorf("pinned file not rewritten: %q", b)
	}
	// The private directory replaced by a link elsewhere is found too.
	other := t.TempDir()
	os.RemoveAll(p.Dir)
	if err := os.Symlink(other, p.Dir); err != nil {
		t.Fatal(err)
	}
	if c, _ := p.Changes(); len(c) != 1 {
		t.Fatalf("replaced dir: %q", c)
	}
	if fi, err := os.Lstat(p.Dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir not recreated: %v %v", fi, err)
	}
}

func TestRestoreGivesAgentsTheUsersValues(t *testing.T) {
	_, repo := pinHome(t)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "g"))
	p, err := PinGitConfig(repo, "")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	want := os.Getenv("GIT_CONFIG_GLOBAL")
	env := p.Restore(append([]string{"A=1"}, p.Env()...))
	if !reflect.DeepEqual(env, []string{"A=1", "GIT_CONFIG_GLOBAL=" + want, "GIT_CONFIG_NOSYSTEM=1"}) {
		t.Fatalf("agent env = %q", env)
	}
}

func TestQuoteValueEscapes(t *testing.T) {
	if got := quoteValue("a\"b\\c\nd"); got != `"a\"b\\c\nd"` {
		t.Fatal(got)
	}
}
