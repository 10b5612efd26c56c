package agentbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/agents"
)

func TestProgramIsLookedUpAsTheRunWill(t *testing.T) {
	dir := t.TempDir()
	for name, mode := range map[string]os.FileMode{"tool": 0o755, "plain": 0o644} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PATH": "relative:" + dir}
	for _, c := range []struct {
		argv []string
		env  map[string]string
		want string // "" can start, else a part of why not
	}{
		{[]string{"tool", "-p"}, env, ""},
		{[]string{filepath.Join(dir, "tool")}, nil, ""},
		{[]string{"plain"}, env, filepath.Join(dir, "plain") + " is not executable"},
		{[]string{"adir"}, env, filepath.Join(dir, "adir") + " is a directory"},
		{[]string{"missing"}, env, "is not on the PATH its env: sets (relative:" + dir + ")"},
		{[]string{filepath.Join(dir, "missing")}, nil, "cannot start: no such file"},
		{[]string{filepath.Join(dir, "plain")}, nil, "cannot start: not executable"},
		// Known only at the run: in the worktree, or a placeholder.
		{[]string{"./scripts/agent.sh"}, env, ""},
		{[]string{"{worktree}/agent"}, env, ""},
	} {
		_, why := Program(agents.Agent{Command: c.argv, Env: c.env})
		if c.want == "" && why != "" || c.want != "" && !strings.Contains(why, c.want) {
			t.Errorf("%q: %q, want %q", c.argv, why, c.want)
		}
	}
	_, why := Program(agents.Agent{Command: []string{"claude"}, Preset: "claude-code", Env: map[string]string{"PATH": dir}})
	if !strings.Contains(why, "install it (npm install -g @anthropic-ai/claude-code)") {
		t.Errorf("a preset's fix names its install command: %q", why)
	}
}
