package runguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/burl-dev/burl/pkg/gitx"
)

// fakeGit is a git of its own (a script that runs the real one, real),
// which a test can upgrade, and the system config path real names.
func fakeGit(t *testing.T) (git, real, sys string) {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_SYSTEM", "")
	os.Unsetenv("GIT_CONFIG_SYSTEM")
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	git = filepath.Join(t.TempDir(), "git")
	write(t, git, "#!/bin/sh\nexec "+real+" \"$@\"\n")
	if err := os.Chmod(git, 0o755); err != nil {
		t.Fatal(err)
	}
	was := gitx.Program()
	gitx.SetProgram(git)
	t.Cleanup(func() { gitx.SetProgram(was) })
	return git, real, askSystemConfig(t.TempDir(), real)
}

func TestSystemPathKeptForItsGitOnly(t *testing.T) {
	git, real, sys := fakeGit(t)
	if sys == "" {
		t.Skip("git names no system config here")
	}
	state, dir := t.TempDir(), t.TempDir()
	kept := filepath.Join(state, systemPathFile)

	// Asked once, then kept under this git's identity.
	if got := builtinSystemConfig(dir, state, nil); got != sys {
		t.Fatalf("system config = %q, git says %q", got, sys)
	}
	_, id := gitIdentity()
	if b, _ := os.ReadFile(kept); string(b) != id+"\n"+sys+"\n" {
		t.Fatalf("kept %q", b)
	}
	// What is kept for this git is what the next watch takes, unasked.
	write(t, kept, id+"\n/kept/etc/gitconfig\n")
	if got := builtinSystemConfig(dir, state, nil); got != "/kept/etc/gitconfig" {
		t.Fatalf("kept path not used: %q", got)
	}
	// The git upgraded (another size, time, inode): the kept path is
	// another git's, and git is asked again.
	if err := os.Remove(git); err != nil {
		t.Fatal(err)
	}
	write(t, git, "#!/bin/sh\n# upgraded\nexec "+real+" \"$@\"\n")
	if err := os.Chmod(git, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := builtinSystemConfig(dir, state, nil); got != sys {
		t.Fatalf("a stale path was used for an upgraded git: %q, git says %q", got, sys)
	}
	if _, now := gitIdentity(); now == id {
		t.Fatalf("identity unchanged by the upgrade: %q", id)
	}
	// A kept line that is no identity of this git is never read as one.
	write(t, kept, "\n/kept/etc/gitconfig\n")
	if got := builtinSystemConfig(dir, state, nil); got != sys {
		t.Fatalf("an empty identity matched: %q", got)
	}
}

func TestSystemPathFromTheSystemSettings(t *testing.T) {
	fakeGit(t)
	state := t.TempDir()
	entries := []entry{{scope: "global", origin: "file:/home/x/.gitconfig"}, {scope: "system", origin: "file:/opt/git/etc/gitconfig"}}
	if got := builtinSystemConfig(t.TempDir(), state, entries); got != "/opt/git/etc/gitconfig" {
		t.Fatalf("system config = %q", got)
	}
	if _, err := os.Stat(filepath.Join(state, systemPathFile)); err == nil {
		t.Fatalf("git asked though its settings named the file")
	}
	// GIT_CONFIG_SYSTEM's settings name that file, not git's own.
	t.Setenv("GIT_CONFIG_SYSTEM", "/opt/git/etc/gitconfig")
	if got := builtinSystemConfig(t.TempDir(), state, entries); got == "/opt/git/etc/gitconfig" {
		t.Fatalf("GIT_CONFIG_SYSTEM's file taken for git's own")
	}
}
