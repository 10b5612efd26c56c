package gitobj

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/gitx"
)

// ChangedPaths lists what git diff --no-renames --name-only lists: files
// changed, added, removed, a folder become a file and back, a mode.
func TestChangedPathsAgreesWithGitDiff(t *testing.T) {
	gittest.Isolate(t)
	dir := gittest.NewRepo(t)
	write := func(files map[string]string) string {
		t.Helper()
		for p, body := range files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if body == "" {
				if err := os.RemoveAll(full); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		gittest.Git(t, dir, "add", "-A")
		gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "x")
		return strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "HEAD"))
	}
	a := write(map[string]string{"keep/a.txt": "a\n", "keep/deep/b.txt": "b\n", "gone/c.txt": "c\n", "flip": "file\n", "same/d.txt": "d\n", "x.sh": "x\n"})
	b := write(map[string]string{"keep/a.txt": "a2\n", "gone": "", "flip": "", "new/e/f.txt": "f\n", ".burl/TASK.md": "t\n"})
	b = write(map[string]string{"flip/inside.txt": "now a folder\n"})
	if err := os.Chmod(filepath.Join(dir, "x.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	b = write(nil)
	for _, c := range [][2]string{{a, b}, {b, a}, {a, a}} {
		got, err := ChangedPaths(gitx.In(dir), c[0], c[1])
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(gittest.Git(t, dir, "diff", "--no-renames", "--name-only", c[0], c[1]))
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("ChangedPaths(%.7s, %.7s) = %q, git diff --name-only = %q", c[0], c[1], got, want)
		}
	}
}
