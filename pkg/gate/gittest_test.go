package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// gitRepo is a throwaway repository isolated from the machine's git setup.
type gitRepo struct {
	t   *testing.T
	dir string
	env []string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	home := t.TempDir()
	g := &gitRepo{t: t, dir: t.TempDir(), env: append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+filepath.Join(home, "gitconfig"),
		"HOME="+home,
		"LC_ALL=C",
	)}
	g.git("init", "-q")
	return g
}

// git runs git with a fixed identity and returns its stdout.
func (g *gitRepo) git(args ...string) []byte {
	g.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=burl-test", "-c", "user.email=test@burl.invalid", "-c", "core.autocrlf=false"}, args...)...)
	cmd.Dir = g.dir
	cmd.Env = g.env
	var stderr []byte
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = ee.Stderr
	}
	if err != nil {
		g.t.Fatalf("git %v: %v\n%s", args, err, stderr)
	}
	return out
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
	return string(g.git("rev-parse", "HEAD")[:40])
}
