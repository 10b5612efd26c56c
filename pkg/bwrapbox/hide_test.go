package bwrapbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

func TestHelperStoresFollowFlagsAndDefaults(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "/xc")
	got := helperStores([]string{
		"store", "store --file ~/creds", "/usr/lib/git-core/git-credential-store --file=/etc/c",
		"cache --socket /run/s", "cache", "!gh auth git-credential", "libsecret",
	}, "/h")
	want := []string{
		"/h/.git-credentials", "/h/.config/git/credentials", "/h/creds", "/etc/c",
		"/run/s", "/h/.git-credential-cache", "/xc/git/credential",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("helperStores =\n%q\nwant\n%q", got, want)
	}
}

func TestLocalRemote(t *testing.T) {
	root := t.TempDir()
	bare := filepath.Join(root, "up.git")
	if err := os.Mkdir(bare, 0o755); err != nil {
		t.Fatal(err)
	}
	real := realPath(bare)
	for u, want := range map[string]string{
		bare: real, "file://" + bare: real, "up.git": real, "./up": real,
		"https://example.com/r.git": "", "git@host:r.git": "", "host:/abs/r": "", "/nowhere": "",
	} {
		if got := localRemote(u, root); got != want {
			t.Errorf("localRemote(%q) = %q, want %q", u, got, want)
		}
	}
}

func TestHiddenResolvesEntriesAndKeepsTheRepository(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := filepath.Join(home, "work", "repo")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	for _, p := range []string{".ssh/id", ".git-credentials", "mine/creds"} {
		write(t, filepath.Join(home, p), "secret")
	}
	if out, err := exec.Command("git", "-C", repo, "config", "credential.helper", "store --file ~/mine/creds").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if out, err := exec.Command("git", "-C", repo, "remote", "add", "origin", home).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	t.Setenv("GH_TOKEN", "x")
	h, err := Hidden(repo, nil, repo)
	if err != nil {
		t.Fatal(err)
	}
	r := realPath(home)
	for _, p := range []string{".ssh", ".git-credentials", "mine/creds"} {
		if !contains(h.Paths, filepath.Join(r, p)) {
			t.Errorf("%s not hidden: %q", p, h.Paths)
		}
	}
	if !contains(h.Env, "GH_TOKEN") || !contains(h.Env, "SSH_AUTH_SOCK") {
		t.Errorf("env = %q", h.Env)
	}
	if !reflect.DeepEqual(h.LocalRemotes, []string{r}) {
		t.Errorf("local remotes = %q", h.LocalRemotes)
	}
	// A custom list replaces the default; HOME itself holds the
	// repository and is left visible, saying so.
	h, err = Hidden(repo, []string{"~/work", "~/.ssh", "AWS_KEY"}, repo)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h.Paths, []string{filepath.Join(r, ".ssh")}) || !reflect.DeepEqual(h.Env, []string{"AWS_KEY"}) || len(h.Skipped) != 1 {
		t.Fatalf("custom: %+v", h)
	}
}
