package repo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
)

// discover answers as git rev-parse does, where it answers at all.
func TestDiscoverAgreesWithRevParse(t *testing.T) {
	root := gittest.NewRepo(t)
	wt := filepath.Join(root, ".burl")
	gittest.Git(t, root, "worktree", "add", "-q", "-b", "flow", wt)
	sub := filepath.Join(wt, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, wt, sub, link} {
		cmd := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel")
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		common, top, ok := discover(dir)
		if want := strings.TrimSpace(string(out)); !ok || common+"\n"+top != want {
			t.Errorf("in %s: %q %q %v, git says %q", dir, common, top, ok, want)
		}
	}
	// Inside the git dir, or with the repository named by the environment,
	// git answers.
	if _, _, ok := discover(filepath.Join(root, ".git")); ok {
		t.Error("discover answered inside the git dir")
	}
	t.Setenv("GIT_DIR", filepath.Join(root, ".git"))
	if _, _, ok := discover(root); ok {
		t.Error("discover answered with GIT_DIR set")
	}
}
