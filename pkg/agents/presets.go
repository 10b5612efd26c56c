package agents

import (
	"sort"
	"strings"
)

// preset is a tool's documented non-interactive command line, split where
// an agent's own `args` go: after the tool's flags, before a trailing
// prompt that some tools take as their last positional argument.
type preset struct {
	head, tail []string
	doc        string // where the flags are documented
}

// presets are the agent CLIs burl knows how to run unattended in a task
// worktree (watch starts every agent in it, so no directory flag is
// needed). {prompt} is the prompt's text; {prompt_file} its path.
// Permission flags let the tool edit and run commands without asking:
// watch runs it in the sandbox that protects the repository (DESIGN §16).
// Tools that take an MCP configuration on their command line are handed
// burl's server (git-burl-mcp(1)) bound to the task's worktree: {worktree}
// is inserted as it is, so a path holding a double quote or a backslash
// would break the JSON or TOML around it.
// presets is a function, not a package-level map: the commit hook links
// this package (through pkg/trust) and must not build the table at start.
func presets() map[string]preset {
	return map[string]preset{
		"claude-code": {
			head: []string{"claude", "-p", "{prompt}", "--output-format", "json", "--permission-mode", "bypassPermissions",
				"--mcp-config", `{"mcpServers":{"burl":{"command":"git","args":["burl","mcp","--dir","{worktree}"]}}}`},
			doc: "Claude Code: claude -p (print mode), --output-format json prints the result with total_cost_usd and usage, --mcp-config adds MCP servers",
		},
		"codex": {
			head: []string{"codex", "exec", "--json", "--full-auto", "--skip-git-repo-check",
				"-c", `mcp_servers.burl.command="git"`, "-c", `mcp_servers.burl.args=["burl","mcp","--dir","{worktree}"]`},
			tail: []string{"--", "{prompt}"},
			doc:  "Codex CLI: codex exec (non-interactive), --json prints events with each turn's usage, -c mcp_servers.NAME.* adds an MCP server",
		},
		"gemini": {
			head: []string{"gemini", "--prompt", "{prompt}", "--yolo", "--output-format", "json"},
			doc:  "Gemini CLI: --prompt runs headless, --yolo approves tool calls",
		},
		"aider": {
			head: []string{"aider", "--message-file", "{prompt_file}", "--yes-always", "--no-check-update", "--no-pretty"},
			doc:  "aider: --message-file sends one message and exits, --yes-always answers its questions",
		},
		"opencode": {
			head: []string{"opencode", "run", "--format", "json"},
			tail: []string{"{prompt}"},
			doc:  "opencode: opencode run [message] runs one prompt non-interactively",
		},
	}
}

// Presets lists the preset names, sorted.
func Presets() []string {
	out := make([]string, 0, len(presets()))
	for n := range presets() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// expand is the argv of preset name with the agent's args in place.
func expand(name string, args []string) ([]string, bool) {
	p, ok := presets()[name]
	if !ok {
		return nil, false
	}
	argv := append(append(append([]string{}, p.head...), args...), p.tail...)
	return argv, true
}

func knownPresets() string { return strings.Join(Presets(), ", ") }
