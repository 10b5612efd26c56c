package bwrapbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/runguard"
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
// allows. The cache of a tool on PATH is made when missing, parents
// included, as the tool itself would on first use: in a fresh HOME (no
// ~/.cache yet) the box could not hold it writable otherwise, and the
// read-only HOME would fail the tool's first go test or npm install.
func DefaultWrite() []string {
	type cache struct {
		entry string
		tools []string
	}
	caches := []cache{{"~/.npm/", []string{"npm"}}, {"~/.cache/pip/", []string{"pip", "pip3"}},
		{"~/.cargo/registry/", []string{"cargo"}}, {"~/.cache/yarn/", []string{"yarn"}}, {"~/.cache/pnpm/", []string{"pnpm"}}}
	goTool := []string{"go"}
	if c := os.Getenv("GOCACHE"); filepath.IsAbs(c) {
		caches = append(caches, cache{c + "/", goTool})
	} else if x := os.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(x) {
		caches = append(caches, cache{filepath.Join(x, "go-build") + "/", goTool})
	} else {
		caches = append(caches, cache{"~/.cache/go-build/", goTool})
	}
	if m := os.Getenv("GOMODCACHE"); filepath.IsAbs(m) {
		caches = append(caches, cache{m + "/", goTool})
	} else if g := os.Getenv("GOPATH"); filepath.IsAbs(g) {
		caches = append(caches, cache{filepath.Join(strings.Split(g, string(os.PathListSeparator))[0], "pkg", "mod") + "/", goTool})
	} else {
		caches = append(caches, cache{"~/go/pkg/mod/", goTool})
	}
	home, _ := os.UserHomeDir()
	out := make([]string, 0, len(caches))
	for _, c := range caches {
		out = append(out, c.entry)
		p := runguard.ExpandHome(strings.TrimSuffix(c.entry, "/"), home)
		if !filepath.IsAbs(p) || !onPath(c.tools) {
			continue
		}
		if _, err := os.Lstat(p); err != nil {
			_ = os.MkdirAll(p, 0o755)
		}
	}
	return out
}

// onPath reports whether one of tools is a program on PATH.
func onPath(tools []string) bool {
	for _, t := range tools {
		if _, err := exec.LookPath(t); err == nil {
			return true
		}
	}
	return false
}

// WritePaths resolves sandbox_write entries (~/path or /path, a trailing
// / for a directory to make when missing) against HOME, with why each is
// there; a directory entry missing under an existing parent is made.
func WritePaths(entries []string, why string) []Path {
	home, _ := os.UserHomeDir()
	var out []Path
	for _, e := range entries {
		dir := strings.HasSuffix(e, "/")
		p := runguard.ExpandHome(strings.TrimSuffix(e, "/"), home)
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
