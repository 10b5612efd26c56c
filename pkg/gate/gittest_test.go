package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
)

// gitRepo is a throwaway repository isolated from the machine's git setup.
type gitRepo struct {
	t   *testing.T
	dir string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	gittest.Isolate(t)
	g := &gitRepo{t: t, dir: t.TempDir()}
	g.git("init", "-q")
	return g
}

// git returns stdout untouched: the tests parse -z lists and patches.
func (g *gitRepo) git(args ...string) []byte {
	g.t.Helper()
	return gittest.Output(g.t, g.dir, args...)
}

func (g *gitRepo) write(name, content string) {
	g.t.Helper()
	p := filepath.Join(g.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		g.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		g.t.Fatal(err)
	}
}

func (g *gitRepo) commit(msg string) string {
	g.t.Helper()
	g.git("add", "-A")
	g.git("commit", "-q", "-m", msg)
	return gittest.Git(g.t, g.dir, "rev-parse", "HEAD")
}
