package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/repo"
)

// A read-only run binds the repository read-only and, after it, only the
// run's own folder writable; it is confined like every run, says it is a
// watch run at the active-run file, hides what is hidden, starts in the
// checkout and runs argv untouched.
func TestReadOnlyBindsTheRepositoryReadOnly(t *testing.T) {
	root := t.TempDir()
	r := &repo.Repo{Root: root, CommonDir: filepath.Join(root, ".git")}
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	secret := filepath.Join(t.TempDir(), "creds")
	for _, d := range []string{r.CommonDir, src, secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	argv, err := ReadOnly(Spec{Repo: r, Worktree: src, ReadOnly: []string{filepath.Join(root, "missing")}, Hide: []string{secret}},
		Info{Task: "TASK-001", Run: "review-1", Out: filepath.Join(tmp, "out")}, tmp, []string{"critic", "--flag", "a b"})
	if err != nil {
		t.Fatal(err)
	}
	at := func(seq ...string) int {
		for i := range argv {
			if slices.Equal(argv[i:min(i+len(seq), len(argv))], seq) {
				return i
			}
		}
		t.Errorf("argv lacks %q: %q", seq, argv)
		return -1
	}
	if filepath.Base(argv[0]) != "bwrap" || at("--unshare-pid") < 0 || at("--die-with-parent") < 0 {
		t.Errorf("not confined as every run: %q", argv)
	}
	at("--bind", tmp, tmp)
	at("--ro-bind", root, root)
	at("--ro-bind", filepath.Join(tmp, runJSON), r.ActiveRunFile())
	at("--tmpfs", secret)
	if strings.Contains(strings.Join(argv, " "), "missing") {
		t.Errorf("a path that does not exist is bound: %q", argv)
	}
	if tail := argv[len(argv)-6:]; !slices.Equal(tail, []string{"--chdir", src, "--", "critic", "--flag", "a b"}) {
		t.Errorf("argv ends in %q", tail)
	}
	if data, err := os.ReadFile(filepath.Join(tmp, runJSON)); err != nil || !strings.Contains(string(data), `"task":"TASK-001"`) {
		t.Errorf("the run's description: %s, %v", data, err)
	}
	if st, err := os.Stat(r.ActiveRunFile()); err != nil || st.Size() != 0 {
		t.Errorf("the active-run file outside the run must exist and be empty: %v", err)
	}
}
