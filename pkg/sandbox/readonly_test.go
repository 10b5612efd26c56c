package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A read-only run binds the repository read-only and only the run's own
// folder writable, after it; what is hidden is hidden; it starts in the
// checkout and runs argv untouched.
func TestReadOnlyBindsTheRepositoryReadOnly(t *testing.T) {
	root := t.TempDir()
	common := filepath.Join(root, ".git")
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	secret := filepath.Join(t.TempDir(), "creds")
	for _, d := range []string{common, src, secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(ReadOnly(Spec{Root: root, CommonDir: common, Worktree: src, ReadOnly: []string{filepath.Join(root, "missing")}, Hide: []string{secret}},
		tmp, []string{"critic", "--flag", "a b"}), "\x00")
	want := strings.Join([]string{"bwrap", "--dev-bind", "/", "/", "--die-with-parent",
		"--ro-bind", root, root, "--ro-bind", common, common,
		"--bind", tmp, tmp, "--tmpfs", secret, "--chdir", src, "--", "critic", "--flag", "a b"}, "\x00")
	if got != want {
		t.Errorf("argv:\n%q\nwant\n%q", strings.Split(got, "\x00"), strings.Split(want, "\x00"))
	}
}
