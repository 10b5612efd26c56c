package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// PresetWrite are the paths each agent CLI of agents.yaml's presets
// writes outside its worktree, which its box keeps writable (its login,
// settings, sessions and logs; DESIGN §24). An entry ending in / is a
// directory made before the run when it is missing; any other is bound
// only where it exists.
var PresetWrite = map[string][]string{
	"claude-code": {"~/.claude/", "~/.claude.json", "~/.local/state/claude/", "~/.cache/claude/", "~/.npm/"},
	"codex":       {"~/.codex/"},
	"gemini":      {"~/.gemini/", "~/.npm/"},
	"aider":       {"~/.aider/", "~/.aider.chat.history.md", "~/.cache/pip/"},
	"opencode":    {"~/.local/share/opencode/", "~/.local/state/opencode/", "~/.cache/opencode/", "~/.config/opencode/", "~/.npm/"},
}

// DefaultWrite are the language caches every box keeps writable, agents'
// and gates' alike, so that go test, npm and pip keep their speed and
// work offline. A cache is shared by every run: the README says what that
// allows.
func DefaultWrite() []string {
	out := []string{"~/.npm/", "~/.cache/pip/", "~/.cargo/registry/", "~/.cache/yarn/", "~/.cache/pnpm/"}
	if c := os.Getenv("GOCACHE"); filepath.IsAbs(c) {
		out = append(out, c+"/")
	} else if x := os.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(x) {
		out = append(out, filepath.Join(x, "go-build")+"/")
	} else {
		out = append(out, "~/.cache/go-build/")
	}
	if m := os.Getenv("GOMODCACHE"); filepath.IsAbs(m) {
		out = append(out, m+"/")
	} else if g := os.Getenv("GOPATH"); filepath.IsAbs(g) {
		out = append(out, filepath.Join(strings.Split(g, string(os.PathListSeparator))[0], "pkg", "mod")+"/")
	} else {
		out = append(out, "~/go/pkg/mod/")
	}
	return out
}

// WritePaths resolves sandbox_write entries (~/path or /path, a trailing
// / for a directory to make when missing) against HOME, with why each is
// there; a directory entry missing under an existing parent is made.
func WritePaths(entries []string, why string) []Path {
	home, _ := os.UserHomeDir()
	var out []Path
	for _, e := range entries {
		dir := strings.HasSuffix(e, "/")
		p := expandHome(strings.TrimSuffix(e, "/"), home)
		if !filepath.IsAbs(p) || filepath.Clean(p) == "/" {
			continue
		}
		if dir {
			if _, err := os.Lstat(p); err != nil {
				if _, err := os.Stat(filepath.Dir(p)); err == nil {
					_ = os.MkdirAll(p, 0o755)
				}
			}
		}
		out = append(out, Path{Path: realPath(p), Why: why + ": " + e, Mode: "write"})
	}
	return out
}
