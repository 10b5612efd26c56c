package agents

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseDefaultsAndValues(t *testing.T) {
	f, err := Parse("agents.yaml", []byte(`auto_approve: true
agents:
  - name: coder
    command: ["claude", "-p", "@{prompt_file}"]
  - name: tester
    command: [sh, run.sh]
    max_parallel: 3
    timeout: 90s
    retries: 0
    tags: [test]
    env: {FOO: bar}
`))
	if err != nil {
		t.Fatal(err)
	}
	if !f.AutoApprove || len(f.Agents) != 2 {
		t.Fatalf("got %+v", f)
	}
	a := f.Agents[0]
	if a.MaxParallel != DefaultMaxParallel || a.Timeout != DefaultTimeout || a.Retries != DefaultRetries || a.Command[2] != "@{prompt_file}" {
		t.Errorf("defaults: %+v", a)
	}
	b := f.Agents[1]
	if b.MaxParallel != 3 || b.Timeout != 90*time.Second || b.Retries != 0 || b.Tags[0] != "test" || b.Env["FOO"] != "bar" {
		t.Errorf("values: %+v", b)
	}
}

func TestParseErrorsNameFileKeyLine(t *testing.T) {
	for _, c := range []struct {
		yaml, key string
		line      int
	}{
		{"agents:\n  - name: a\n    command: \"claude -p x\"\n", "agents.command", 3},
		{"agents:\n  - name: a\n    command: [x]\n    retries: lots\n", "agents.retries", 4},
		{"agents:\n  - name: a\n    command: [x]\n    max_parallel: 0\n", "agents.max_parallel", 4},
		{"agents:\n  - name: a\n    command: [x]\n    timeout: 5\n", "agents.timeout", 4},
		{"agents:\n  - name: a\n    command: [x]\n    timout: 5m\n", "agents.timout", 4},
		{"agents:\n  - name: a\n    command: [x]\n  - name: a\n    command: [y]\n", "agents.name", 4},
		{"agents:\n  - command: [x]\n", "agents.name", 2},
		{"auto_approve: yes please\nagents:\n  - name: a\n    command: [x]\n", "auto_approve", 1},
		{"agent:\n  - name: a\n", "agent", 1},
		{"agents:\n  - name: a\n    command: [x, [y]]\n", "agents.command", 3},
		{"agents: []\n", "agents", 1},
		{"agents:\n  - name: a\n    command: [x]\n    author: Claude\n", "agents.author", 4},
		{"agents:\n  - name: a\n    command: [x]\n    author: \"<c@x> Claude\"\n", "agents.author", 4},
		{"agents:\n  - name: a\n    command: [x]\n    author: \"Claude. <c@x>\"\n", "agents.author", 4},
	} {
		_, err := Parse("w/agents.yaml", []byte(c.yaml))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: want *Error, got %v", c.yaml, err)
			continue
		}
		if e.Key != c.key || e.Line != c.line || !strings.HasPrefix(err.Error(), "w/agents.yaml:") {
			t.Errorf("%q: got key %q line %d (%v), want %q line %d", c.yaml, e.Key, e.Line, err, c.key, c.line)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("agents:\n  - name: a\n    command: [x]\n"))
	f.Add([]byte("auto_approve: true\nagents: [{name: b, command: [y], env: {A: b}}]\n"))
	f.Add([]byte("agents: [{name: a, command: [x]}, {name: r, preset: claude-code}]\nreview: {agent: r, rounds: 3}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("agents.yaml", data)
		if err == nil && (len(file.Agents) == 0 || file.Agents[0].Name == "" || len(file.Agents[0].Command) == 0) {
			t.Fatalf("accepted an incomplete file: %+v", file)
		}
		// A reviewer is always one of the agents, and never the only one.
		if err == nil && file.Review != nil && (file.Reviewer() == nil || len(file.Workers()) == 0) {
			t.Fatalf("accepted a reviewer with no author: %+v", file)
		}
	})
}

// Each preset is the tool's documented non-interactive command line (the
// flags named in presets.go's doc strings), with args before a trailing
// prompt, never in place of the tool's own flags.
func TestPresetsExpand(t *testing.T) {
	f, err := Parse("agents.yaml", []byte(`agents:
  - name: claude
    preset: claude-code
    args: ["--model", "sonnet"]
    max_cost_usd: 2.50
  - name: codex
    preset: codex
    args: ["-m", "gpt-5"]
  - {name: g, preset: gemini}
  - {name: a, preset: aider}
  - {name: o, preset: opencode}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"claude": `claude -p {prompt} --output-format json --permission-mode bypassPermissions --mcp-config {"mcpServers":{"burl":{"command":"git","args":["burl","mcp","--dir","{worktree}"]}}} --model sonnet`,
		"codex":  `codex exec --json --full-auto --skip-git-repo-check -c mcp_servers.burl.command="git" -c mcp_servers.burl.args=["burl","mcp","--dir","{worktree}"] -m gpt-5 -- {prompt}`,
		"g":      "gemini --prompt {prompt} --yolo --output-format json",
		"a":      "aider --message-file {prompt_file} --yes-always --no-check-update --no-pretty",
		"o":      "opencode run --format json {prompt}",
	}
	for _, a := range f.Agents {
		if got := strings.Join(a.Command, " "); got != want[a.Name] {
			t.Errorf("%s: got %q, want %q", a.Name, got, want[a.Name])
		}
	}
	if f.Agents[0].MaxCostUSD != 2.5 || f.Agents[0].Preset != "claude-code" {
		t.Errorf("claude: %+v", f.Agents[0])
	}
}

func TestPresetErrors(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"agents:\n  - {name: a, preset: cursor}\n", `agents.yaml:2: agents.preset: "cursor" is not a preset (known: aider, claude-code, codex, gemini, opencode)`},
		{"agents:\n  - {name: a, preset: codex, command: [x]}\n", `agents.yaml:2: agents.preset: agent "a" has both preset and command`},
		{"agents:\n  - {name: a, command: [x], args: [y]}\n", `agents.yaml:2: agents.args: adds to a preset's command line`},
		{"agents:\n  - {name: a, preset: codex, max_cost_usd: -1}\n", `agents.yaml:2: agents.max_cost_usd: must be a positive amount`},
		{"agents:\n  - {name: a}\n", `agents.command: missing for agent "a" (or name a preset`},
	} {
		_, err := Parse("agents.yaml", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.doc, err, c.want)
		}
	}
}

// review: names another entry than the author: the reviewer never claims,
// and a file whose only agent reviews (it would review its own work) or
// whose review names no agent is refused at the line of review.agent.
func TestReview(t *testing.T) {
	f, err := Parse("agents.yaml", []byte(`agents:
  - {name: coder, command: [x]}
  - {name: critic, preset: codex, args: [-m, o3]}
review: {agent: critic}
`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Review == nil || f.Review.Agent != "critic" || f.Review.Rounds != DefaultReviewRounds {
		t.Fatalf("review: %+v", f.Review)
	}
	if w := f.Workers(); len(w) != 1 || w[0].Name != "coder" || f.Reviewer().Name != "critic" {
		t.Errorf("workers %+v, reviewer %+v", w, f.Reviewer())
	}
	// The reviewer's preset is the tool's read-only line, the verdict
	// written by codex itself.
	if got := strings.Join(f.Reviewer().Command, " "); got != "codex exec --json --sandbox read-only --skip-git-repo-check --output-schema {review_schema} --output-last-message {review_file} -m o3 -- {prompt}" {
		t.Errorf("reviewer's command %q", got)
	}
	for _, c := range []struct{ doc, want string }{
		{"agents:\n  - {name: coder, command: [x]}\nreview: {agent: coder}\n", `agents.yaml:3: review.agent: "coder" is the only agent, so it would review its own work`},
		{"review:\n  agent: critic\nagents:\n  - {name: coder, command: [x]}\n", `agents.yaml:2: review.agent: "critic" is not an agent of this file (agents: coder)`},
		{"agents:\n  - {name: a, command: [x]}\n  - {name: b, command: [x]}\nreview: {agent: b, rounds: 0}\n", `agents.yaml:4: review.rounds: must be a whole number >= 1`},
		{"agents:\n  - {name: a, command: [x]}\n  - {name: b, command: [x]}\nreview: {agent: b, round: 3}\n", `agents.yaml:4: review.round: unknown key`},
		{"agents:\n  - {name: a, command: [x]}\n  - {name: b, command: [x]}\nreview: {rounds: 3}\n", `agents.yaml:4: review.agent: missing`},
		{"agents:\n  - {name: a, command: [x]}\n  - {name: b, preset: aider}\nreview: {agent: b}\n", `agents.yaml:3: agents.preset: "aider" has no reviewer's command line (presets that review: claude-code, codex)`},
		{"agents:\n  - {name: a, command: [x]}\nreview: critic\n", `agents.yaml:3: review: must be a mapping`},
	} {
		_, err := Parse("agents.yaml", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.doc, err, c.want)
		}
	}
}

func TestAuthor(t *testing.T) {
	f, err := Parse("w/agents.yaml", []byte("agents:\n  - name: a\n    command: [x]\n    author: Claude Code <claude@example.com>\n  - name: b\n    command: [y]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Agents[0].Author; got != "Claude Code <claude@example.com>" {
		t.Errorf("author = %q", got)
	}
	if got := f.Agents[1].Author; got != "" {
		t.Errorf("author of an agent without one = %q, want empty", got)
	}
}
