// Package gittest gives tests a git that cannot see the machine's
// configuration, so a developer's or CI's settings (signing, hooks paths,
// default branch, identity) change no result.
package gittest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// config is what the tests rely on: an identity so commits work anywhere,
// main as the first branch, no detached-HEAD advice on stderr, and files
// committed byte for byte (gate's tests commit CRLF content).
const config = `[user]
	name = burl-test
	email = test@burl.invalid
[init]
	defaultBranch = main
[advice]
	detachedHead = false
[core]
	autocrlf = false
`

// Isolate points every git the test starts, in process (gitx inherits the
// environment) or not, at a fresh configuration of its own. It sets the
// environment, so it cannot serve a parallel test.
func Isolate(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git not installed")
	}
	home := tb.TempDir()
	cfg := filepath.Join(home, "gitconfig")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Setenv("HOME", home)
	tb.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	tb.Setenv("GIT_CONFIG_GLOBAL", cfg)
}

// NewRepo isolates git and returns a repository with one empty commit on
// main, alone in a directory of its own so that siblings (linked
// worktrees, clones) can go next to it. The path has its symlinks resolved
// (macOS's temp dir is behind one) because git reports paths that way.
func NewRepo(tb testing.TB) string {
	tb.Helper()
	Isolate(tb)
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(root, "repo")
	Git(tb, root, "init", "-q", dir)
	Git(tb, dir, "commit", "-q", "--allow-empty", "-m", "init")
	return dir
}

// Git runs git in dir and returns its stdout with surrounding white space
// trimmed; a failure ends the test with git's stderr.
func Git(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return strings.TrimSpace(string(Output(tb, dir, args...)))
}

// Output is Git's stdout untouched, for output that is parsed byte for
// byte (-z lists, patches whose last newline matters).
func Output(tb testing.TB, dir string, args ...string) []byte {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	// The C locale, as gitx uses: a test that reads git's messages reads
	// what burl reads.
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.Bytes())
	}
	return out
}
