#!/usr/bin/env bats
# Usage and budgets (DESIGN §18), and agent presets: real agent scripts
# under git burl watch report what they spent; status, log, monitor and
# the HTML report show it; max_cost_usd stops a task that spends more.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch
load queue

USAGE_DOCS="$BATS_TEST_DIRNAME/../pkg/usage/testdata"

@test "usage an agent writes to \$BURL_USAGE_FILE shows in status --json, log and the HTML report" {
	watch_repo
	git burl add "Feature one" --affects-glob "src/**" >/dev/null
	git burl add "Feature two" --affects-glob "lib/**" >/dev/null
	agent spender 'd=src; [ "$BURL_TASK" = TASK-002 ] && d=lib; mkdir -p $d; echo x >$d/f.txt
printf "{\"input_tokens\":1200,\"output_tokens\":300,\"cost_usd\":0.42,\"model\":\"m-1\"}\n" >"$BURL_USAGE_FILE"'
	one_agent spender
	run git burl watch --once --interval 100ms
	assert_success
	run git burl status --json
	assert_success
	json=$output
	jq -e '.tasks[] | select(.id == "TASK-001") | .usage.bot | .runs == 1 and .input_tokens == 1200 and .output_tokens == 300 and .cost_usd == 0.42' <<<"$json"
	jq -e '.usage | .runs == 2 and .input_tokens == 2400 and .cost_usd == 0.84 and .by_agent.bot.runs == 2' <<<"$json"
	# Each run's own numbers are in its run_end event, with their source.
	grep '"action":"run_end"' <(all_events) | grep -q '"usage":{"input_tokens":1200,"output_tokens":300,"cost_usd":0.42,"model":"m-1","source":"usage_file"}'
	run git burl log --action run_end
	assert_success
	assert_output_contains 'usage: 2 run(s), 2.4k in / 600 out, $0.84'
	git burl monitor --html "$BATS_TEST_TMPDIR/report.html" >/dev/null
	grep -q '1 run(s) · 1.2k in / 300 out, \$0.42' "$BATS_TEST_TMPDIR/report.html"
	grep -q '<td>bot</td><td>2</td><td>2400</td><td>600</td><td>0.84</td>' "$BATS_TEST_TMPDIR/report.html"
}

@test "a task whose runs spend more than max_cost_usd goes to BLOCKED with the sum in the reason" {
	watch_repo
	git burl add "Expensive" --affects-glob "src/**" >/dev/null
	# Spends $0.60 a run and fails: the second run brings it over $1.00.
	agent pricey 'printf "{\"cost_usd\":0.6,\"input_tokens\":10,\"output_tokens\":1}\n" >"$BURL_USAGE_FILE"; exit 1'
	agents_yaml "agents:
  - name: bot
    command: [\"$AGENTS/pricey\"]
    retries: 5
    max_cost_usd: 1.00"
	run git burl watch --once --interval 100ms
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	# Two runs, not six: the budget stopped the retries.
	[ "$(grep -c '"action":"run_end"' <(all_events))" = 2 ]
	[ ! -e "$AGENTS/prompts/TASK-001-3.md" ]
	grep -q 'blocked_reason: .*spent \$1.20 (2 run(s).*over max_cost_usd \$1.00 of agent bot' "$(task_file TASK-001)"
}

@test "a task's own max_cost_usd is its budget too, and a blocked task over it is not run again" {
	watch_repo
	git burl add "Capped" --affects-glob "src/**" >/dev/null
	f=$(task_file TASK-001)
	sed -i 's/^priority:/max_cost_usd: 0.5\npriority:/' "$f"
	git -C .burl commit -q -am "cap TASK-001"
	agent pricey 'printf "{\"cost_usd\":0.6}\n" >"$BURL_USAGE_FILE"; exit 1'
	RETRIES=3 one_agent pricey
	run git burl watch --once --interval 100ms
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ "$(grep -c '"action":"run_end"' <(all_events))" = 1 ]
	grep -q 'blocked_reason: .*over max_cost_usd \$0.50 of task TASK-001' "$(task_file TASK-001)"
}

# The claude-code preset runs `claude` with the flags Claude Code
# documents for unattended print mode; this `claude` on PATH checks them,
# does the work and prints the result object Claude Code documents for
# --output-format json (pkg/usage/testdata/claude-code-result.json).
@test "preset claude-code: the documented command line, the prompt as its argument, usage from its JSON result" {
	watch_repo
	git burl add "Preset work" --affects-glob "src/**" >/dev/null
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/claude" <<SH
#!/bin/sh
[ "\$1" = -p ] || { echo "want -p first, got \$*" >&2; exit 64; }
printf '%s' "\$2" | cmp -s - "\$BURL_PROMPT_FILE" || { echo "the prompt argument is not the prompt file's text" >&2; exit 65; }
shift 2
[ "\$1 \$2 \$3 \$4 \$5" = "--output-format json --permission-mode bypassPermissions --mcp-config" ] || { echo "flags: \$*" >&2; exit 66; }
shift 6
[ "\$*" = "--model sonnet" ] || { echo "agent's flags: \$*" >&2; exit 66; }
mkdir -p src && echo done >src/w.txt
cat "$USAGE_DOCS/claude-code-result.json"
SH
	chmod +x "$BATS_TEST_TMPDIR/bin/claude"
	agents_yaml "auto_approve: true
agents:
  - name: claude
    preset: claude-code
    args: [--model, sonnet]"
	run git burl watch --print-command claude
	assert_success
	[ "$output" = "claude -p '{prompt}' --output-format json --permission-mode bypassPermissions --mcp-config '{\"mcpServers\":{\"burl\":{\"command\":\"git\",\"args\":[\"burl\",\"mcp\",\"--dir\",\"{worktree}\"]}}}' --model sonnet" ]
	run git burl watch --print-command claude --json
	jq -e '.preset == "claude-code" and .command[0] == "claude"' <<<"$output"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	grep '"action":"run_end"' <(all_events) | grep -q '"usage":{"input_tokens":69854,"output_tokens":1204,"cost_usd":0.0832,"model":"claude-sonnet-4-5-20250929","source":"claude-code"}'
	run git burl status --json
	jq -e '.usage.by_agent.claude.cost_usd == 0.0832' <<<"$output"
}

# codex exec --json prints a turn.completed line with usage per turn
# (pkg/usage/testdata/codex-exec.jsonl, as openai/codex documents it).
@test "preset codex: exec --json with the prompt after --, usage summed over its turns" {
	watch_repo
	git burl add "Codex work" --affects-glob "src/**" >/dev/null
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/codex" <<SH
#!/bin/sh
[ "\$1 \$2 \$3 \$4 \$5 \$7 \$9" = "exec --json --full-auto --skip-git-repo-check -c -c --" ] || { echo "argv: \$*" >&2; exit 64; }
printf '%s' "\${10}" | cmp -s - "\$BURL_PROMPT_FILE" && [ \$# = 10 ] || exit 65
mkdir -p src && echo done >src/w.txt
cat "$USAGE_DOCS/codex-exec.jsonl"
SH
	chmod +x "$BATS_TEST_TMPDIR/bin/codex"
	agents_yaml "auto_approve: true
agents:
  - {name: codex, preset: codex}"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	grep '"action":"run_end"' <(all_events) | grep -q '"usage":{"input_tokens":51312,"output_tokens":1712,"cost_usd":0,"source":"codex"}'
}

@test "--print-command names the agents when the name is wrong; a bad preset is an error at its line" {
	watch_repo
	agents_yaml "agents:
  - {name: coder, preset: codex}"
	run git burl watch --print-command codr
	assert_failure 1
	assert_output_contains 'agents.yaml has no agent "codr" (agents: coder)'
	assert_output_contains 'git burl watch --print-command coder'
	agents_yaml "agents:
  - {name: coder, preset: cursor}"
	run git burl watch --print-command coder
	assert_failure 1
	assert_output_contains 'agents.yaml:2: agents.preset: "cursor" is not a preset (known: aider, claude-code, codex, gemini, opencode)'
}
