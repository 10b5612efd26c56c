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
	install    string // how its maker says to install it
	// review is the tool's command line for a reviewer (DESIGN §21):
	// nothing written to the worktree, the verdict to {review_file}. nil:
	// the tool has no such line here.
	review *reviewLine
}

// reviewLine is a reviewer's command line, split as a preset's is.
type reviewLine struct{ head, tail []string }

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
			doc:     "Claude Code: claude -p (print mode), --output-format json prints the result with total_cost_usd and usage, --mcp-config adds MCP servers",
			install: "npm install -g @anthropic-ai/claude-code",
			// Reading and git are allowed, and Write for the verdict in
			// {review_dir} (--add-dir); nothing else runs unasked, which
			// print mode refuses.
			review: &reviewLine{head: []string{"claude", "-p", "{prompt}", "--output-format", "json",
				"--allowedTools", "Read,Grep,Glob,Write,Bash(git:*)", "--add-dir", "{review_dir}"}},
		},
		"codex": {
			head: []string{"codex", "exec", "--json", "--full-auto", "--skip-git-repo-check",
				"-c", `mcp_servers.burl.command="git"`, "-c", `mcp_servers.burl.args=["burl","mcp","--dir","{worktree}"]`},
			tail:    []string{"--", "{prompt}"},
			doc:     "Codex CLI: codex exec (non-interactive), --json prints events with each turn's usage, -c mcp_servers.NAME.* adds an MCP server",
			install: "npm install -g @openai/codex",
			// Its own sandbox read-only; codex itself writes the final
			// answer, held to the verdict's JSON schema, to {review_file}.
			review: &reviewLine{head: []string{"codex", "exec", "--json", "--sandbox", "read-only", "--skip-git-repo-check",
				"--output-schema", "{review_schema}", "--output-last-message", "{review_file}"}, tail: []string{"--", "{prompt}"}},
		},
		"gemini": {
			head:    []string{"gemini", "--prompt", "{prompt}", "--yolo", "--output-format", "json"},
			doc:     "Gemini CLI: --prompt runs headless, --yolo approves tool calls",
			install: "npm install -g @google/gemini-cli",
		},
		"aider": {
			head:    []string{"aider", "--message-file", "{prompt_file}", "--yes-always", "--no-check-update", "--no-pretty"},
			doc:     "aider: --message-file sends one message and exits, --yes-always answers its questions",
			install: "python -m pip install aider-install && aider-install",
		},
		"opencode": {
			head:    []string{"opencode", "run", "--format", "json"},
			tail:    []string{"{prompt}"},
			doc:     "opencode: opencode run [message] runs one prompt non-interactively",
			install: "npm install -g opencode-ai",
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

// ReviewPresets lists the presets that have a reviewer's command line.
func ReviewPresets() []string {
	var out []string
	for _, n := range Presets() {
		if presets()[n].review != nil {
			out = append(out, n)
		}
	}
	return out
}

// expand is the argv of preset name with the agent's args in place: the
// reviewer's command line for the reviewer.
func expand(name string, args []string, reviewer bool) ([]string, bool) {
	p, ok := presets()[name]
	if !ok {
		return nil, false
	}
	head, tail := p.head, p.tail
	if reviewer {
		if p.review == nil {
			return nil, false
		}
		head, tail = p.review.head, p.review.tail
	}
	argv := append(append(append([]string{}, head...), args...), tail...)
	return argv, true
}

// Install is how the tool of preset name is installed, as its maker
// documents it ("" for a name that is no preset).
func Install(name string) string { return presets()[name].install }

func knownPresets() string { return strings.Join(Presets(), ", ") }
