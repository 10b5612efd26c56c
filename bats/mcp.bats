#!/usr/bin/env bats
# git burl mcp (DESIGN §23), driven by the official MCP inspector's CLI (npm
# @modelcontextprotocol/inspector, which .ci/run installs) and by JSON-RPC
# lines written by hand, as a careless client would; pkg/mcp's Go tests
# drive it with the Go SDK's client (roots, both protocol eras).

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bats","version":"1"}}}'
INITED='{"jsonrpc":"2.0","method":"notifications/initialized"}'

setup() {
	new_burl_repo
	git burl add "Implement jump" --affects-glob "src/**" >/dev/null
	git burl add "Write the docs" --affects-glob "docs/**" >/dev/null
	# The server starts where no repository is: only the call or the
	# client may say where it acts.
	ELSEWHERE="$BATS_TEST_TMPDIR/elsewhere"
	mkdir -p "$ELSEWHERE"
}

# inspect ARGS...: one request of the inspector's CLI to git burl mcp,
# started in $ELSEWHERE; its answer as JSON in $output.
inspect() {
	command -v mcp-inspector >/dev/null || skip "the MCP inspector is not installed (npm install -g @modelcontextprotocol/inspector)"
	MCP_INSPECTOR_SECRET_STORE=memory run --separate-stderr mcp-inspector --cli --format json -q --cwd "$ELSEWHERE" git burl mcp "$@"
}

# text: the first text of the answer in $output.
text() { jq -r '.result.content[0].text' <<<"$output"; }

# call_line ID ARGS: a tools/call line of the tool burl.
call_line() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"burl","arguments":%s}}' "$1" "$2"
}

@test "tools/list: one tool, burl, whose whole answer is under 600 tokens" {
	inspect --method tools/list
	assert_success
	jq -e '.result.tools | length == 1 and .[0].name == "burl"' <<<"$output"
	jq -e '.result.tools[0].inputSchema.properties.action.enum == ["status","show","why","claim","submit","validate","log","scope_request","propose"]' <<<"$output"
	# The answer as it goes over the wire, at 4 characters a token (OpenAI's
	# cl100k_base counts 311 tokens for its 1,228 bytes).
	answer=$(cd "$ELSEWHERE" && printf '%s\n' "$INIT" "$INITED" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | git burl mcp | tail -n 1)
	jq -e '.id == 2 and (.result.tools | length) == 1' <<<"$answer"
	[ "$((${#answer} / 4))" -lt 450 ] || { echo "tools/list is ${#answer} bytes" >&2; false; }
}

@test "status over MCP is what git burl status --json prints" {
	claim_wt TASK-002 >/dev/null
	inspect --method tools/call --tool-name burl --tool-arg action=status --tool-arg cwd="$REPO"
	assert_success
	[ "$(text)" = "$(git burl status --json)" ]
	inspect --method tools/call --tool-name burl --tool-arg action=status --tool-arg open=true --tool-arg cwd="$REPO"
	[ "$(text)" = "$(git burl status --json --open)" ]
}

@test "claim from the main checkout answers the worktree; calls from it act on its task" {
	inspect --method tools/call --tool-name burl --tool-arg action=claim --tool-arg cwd="$REPO"
	assert_success
	wt=$(text | jq -r .worktree)
	[ "$(bucket_of TASK-001)" = DOING ]
	[ -d "$wt" ]
	# No id: the task whose worktree the call acts in, wherever the server
	# started (here: in the main checkout, whose branch is main).
	MCP_INSPECTOR_SECRET_STORE=memory run --separate-stderr mcp-inspector --cli --format json -q --cwd "$REPO" git burl mcp \
		--method tools/call --tool-name burl --tool-arg action=show --tool-arg cwd="$wt"
	assert_success
	[ "$(text | jq -r .task.id)" = TASK-001 ]
	(cd "$wt" && commit_file src/jump.go "$(jump_go 'return')")
	inspect --method tools/call --tool-name burl --tool-arg action=submit --tool-arg cwd="$wt"
	assert_success
	[ "$(bucket_of TASK-001)" = QA ]
}

@test "a refused call is a tool error carrying the command line's Reason and Fix" {
	inspect --method tools/call --tool-name burl --tool-arg action=submit --tool-arg id=TASK-002 --tool-arg cwd="$REPO"
	assert_failure 5
	jq -e '.result.isError' <<<"$output"
	run --separate-stderr git burl submit TASK-002
	assert_failure 1
	cli=$stderr
	inspect --method tools/call --tool-name burl --tool-arg action=submit --tool-arg id=TASK-002 --tool-arg cwd="$REPO"
	# The same text the command line prints, Reason and Fix included.
	[ "$(text)" = "$cli" ]
	[[ $cli == *"Reason: "* && $cli == *"Fix: "* ]]
	jq -e '.result.structuredContent | .ok == false and .error.kind == "user" and (.error.fix | length > 0)' <<<"$output"
}

@test "an untrusted build command refuses validate over MCP as on the command line" {
	submitted TASK-001 src/jump.go "$(jump_go 'return')" >/dev/null
	sed -i 's|^build_command:.*|build_command: "echo planted"|' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "a build command nobody trusted here"
	inspect --method tools/call --tool-name burl --tool-arg action=validate --tool-arg id=TASK-001 --tool-arg cwd="$REPO"
	assert_failure 5
	[[ "$(text)" == *"Fix: git burl trust"* ]]
	! grep -q planted "$(task_file TASK-001)"
}

@test "scope_request widens nothing: the request is recorded and the gates keep the scope" {
	wt=$(claim_wt TASK-001)
	inspect --method tools/call --tool-name burl --tool-args-json \
		"{\"action\":\"scope_request\",\"cwd\":\"$wt\",\"paths\":[\"docs/notes.md\"],\"reason\":\"the jump is documented\"}"
	assert_success
	text | jq -e '.requested == true and .change.added.affects == ["docs/notes.md"]'
	[ "$(field TASK-001 affects)" = "[]" ]
	[[ "$(field TASK-001 scope_request)" == *"docs/notes.md — the jump is documented"* ]]
	grep '"action":"scope_request"' <(all_events) | grep -q 'the jump is documented'
	(cd "$wt" && commit_file docs/notes.md "notes")
	inspect --method tools/call --tool-name burl --tool-arg action=submit --tool-arg cwd="$wt"
	assert_failure 5
	[[ "$(text)" == *"docs/notes.md"* ]]
	[ "$(bucket_of TASK-001)" = DOING ]
}

@test "bad arguments are tool errors that name them" {
	inspect --method tools/call --tool-name burl --tool-arg action=stats --tool-arg cwd="$REPO"
	assert_failure 5
	[[ "$(text)" == *'did you mean "action": "status"?'* ]]
	inspect --method tools/call --tool-name burl --tool-arg cwd="$REPO"
	assert_failure 5
	[[ "$(text)" == *"the action argument is missing"* ]]
	inspect --method tools/call --tool-name burl --tool-arg action=claim --tool-arg reason=x --tool-arg cwd="$REPO"
	[[ "$(text)" == *'action claim does not take "reason"'* ]]
	inspect --method tools/call --tool-name burl --tool-arg action=show --tool-arg id=1 --tool-arg cwd="$REPO"
	[[ "$(text)" == *'argument "id" must be a string'* ]]
	inspect --method tools/call --tool-name burl --tool-arg action=status --tool-arg cwd="$ELSEWHERE"
	assert_failure 5
	[[ "$(text)" == *"$ELSEWHERE is not inside a git repository"* ]]
	inspect --method tools/call --tool-name burl --tool-arg action=status
	assert_failure 5
	[[ "$(text)" == *"no directory to act in"* ]]
	inspect --method tools/call --tool-name nope
	[ "$status" -ne 0 ]
	[ "$(bucket_of TASK-001)" = READY ]
}

@test "task files are resources burl://task/ID" {
	claim_wt TASK-001 >/dev/null
	inspect --method resources/read --uri burl://task/TASK-001
	# The inspector offers no roots: the server cannot know the repository.
	[ "$status" -ne 0 ]
	command -v mcp-inspector >/dev/null || skip
	MCP_INSPECTOR_SECRET_STORE=memory run --separate-stderr mcp-inspector --cli --format json -q --cwd "$ELSEWHERE" \
		--method resources/read --uri burl://task/TASK-001 -- git burl mcp --dir "$REPO"
	assert_success
	[ "$(jq -r '.result.contents[0].text' <<<"$output")" = "$(cat "$(task_file TASK-001)")" ]
	MCP_INSPECTOR_SECRET_STORE=memory run --separate-stderr mcp-inspector --cli --format json -q --cwd "$ELSEWHERE" \
		--method resources/list -- git burl mcp --dir "$REPO"
	assert_success
	jq -e '[.result.resources[] | .uri + " " + .description] == ["burl://task/TASK-002 READY", "burl://task/TASK-001 DOING"]' <<<"$output"
}

@test "lines that are not JSON-RPC are answered and the session goes on; the end of input answers what was read" {
	cd "$ELSEWHERE"
	run --separate-stderr bash -c 'printf "%s\n" "$1" "$2" "{not json" "{\"id\":7}" "" "$3" | git burl mcp' _ \
		"$INIT" "$INITED" "$(call_line 2 "{\"action\":\"claim\",\"cwd\":\"$REPO\"}")"
	assert_success
	[ "$(grep -c . <<<"$output")" = 4 ]
	grep -q '"id":null.*"code":-32700\|"code":-32700.*"id":null' <<<"$output"
	grep -q '"code":-32600' <<<"$output"
	grep '"id":2' <<<"$output" | jq -e '.result.isError | not'
	[ "$(bucket_of TASK-001)" = DOING ]
}

# The client closes its input while validate's build runs: the call runs
# to its end and is answered, the server exits 0, and nothing is half
# done. SIGTERM stops a build the way Ctrl-C stops git burl validate.
@test "a client that goes away mid-call leaves the call whole and the server exits cleanly" {
	set_config build_command "sleep 1"
	submitted TASK-001 src/jump.go "$(jump_go 'return')" >/dev/null
	mkfifo "$BATS_TEST_TMPDIR/in"
	(cd "$ELSEWHERE" && exec git burl mcp <"$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err") &
	pid=$!
	exec 7>"$BATS_TEST_TMPDIR/in"
	printf '%s\n' "$INIT" "$INITED" "$(call_line 2 "{\"action\":\"validate\",\"cwd\":\"$REPO\",\"id\":\"TASK-001\"}")" >&7
	sleep 0.5
	exec 7>&-
	wait "$pid"
	grep '"id":2' "$BATS_TEST_TMPDIR/out" | jq -e '.result.content[0].text | fromjson | .passed == true'
	grep '"action":"validate"' <(all_events) | grep -q TASK-001
	[ -z "$(locks)" ]
	git burl doctor >/dev/null

	# git-burl execs the server: the signal reaches it, not a git between.
	(cd "$ELSEWHERE" && exec git-burl mcp <"$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err") &
	pid=$!
	exec 7>"$BATS_TEST_TMPDIR/in"
	printf '%s\n' "$INIT" "$INITED" "$(call_line 3 "{\"action\":\"validate\",\"cwd\":\"$REPO\",\"id\":\"TASK-001\"}")" >&7
	sleep 0.5
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	exec 7>&-
	[ "$rc" = 0 ] || [ "$rc" = 130 ] || { echo "exit $rc" >&2; cat "$BATS_TEST_TMPDIR/err" >&2; false; }
	[ -z "$(locks)" ]
	git burl doctor >/dev/null
	[ "$(bucket_of TASK-001)" = QA ]
}

# The presets hand the agent burl's server bound to its worktree: these
# agents start it from the configuration on their command line, as Claude
# Code and Codex do, and ask it which task they hold.
@test "watch hands claude-code and codex agents the MCP server, bound to the task's worktree" {
	set_config max_parallel 0
	git burl block TASK-001 --reason "not for agents" >/dev/null
	git burl block TASK-002 --reason "not for agents" >/dev/null
	git burl add "Claude work" --affects-glob "src/**" --tags claude >/dev/null
	git burl add "Codex work" --affects-glob "lib/**" --tags codex >/dev/null
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	# ask CMD ARGS...: start the server as configured, ask it to show the
	# task (no id, no cwd), check it is this run's.
	cat >"$BATS_TEST_TMPDIR/bin/ask" <<SH
#!/bin/sh
printf '%s\n%s\n%s\n' '$INIT' '$INITED' '$(call_line 2 '{"action":"show"}')' | "\$@" | grep '"id":2' |
	jq -e --arg id "\$BURL_TASK" '.result.content[0].text | fromjson | .task.id == \$id' >/dev/null ||
	{ echo "the MCP server did not show \$BURL_TASK" >&2; exit 70; }
SH
	cat >"$BATS_TEST_TMPDIR/bin/claude" <<'SH'
#!/bin/sh
while [ $# -gt 0 ] && [ "$1" != --mcp-config ]; do shift; done
[ $# -gt 1 ] || { echo "no --mcp-config" >&2; exit 72; }
cmd=$(printf '%s' "$2" | jq -r '.mcpServers.burl.command')
[ "$(printf '%s' "$2" | jq -r '.mcpServers.burl.args[3]')" = "$PWD" ] || { echo "--dir is not the worktree" >&2; exit 71; }
set -- $(printf '%s' "$2" | jq -r '.mcpServers.burl.args[]')
ask "$cmd" "$@" || exit 70
mkdir -p src && echo done >src/w.txt
SH
	cat >"$BATS_TEST_TMPDIR/bin/codex" <<'SH'
#!/bin/sh
for a in "$@"; do
	case $a in
	mcp_servers.burl.command=*) cmd=$(printf '%s' "${a#*=}" | jq -r .) ;;
	mcp_servers.burl.args=*) args=$(printf '%s' "${a#*=}" | jq -r '.[]') ;;
	esac
done
[ -n "$cmd" ] && [ -n "$args" ] || { echo "no mcp_servers.burl" >&2; exit 72; }
set -- $args
ask "$cmd" "$@" || exit 70
mkdir -p lib && echo done >lib/w.txt
SH
	chmod +x "$BATS_TEST_TMPDIR/bin/"*
	agents_yaml "auto_approve: true
agents:
  - {name: claude, preset: claude-code, tags: [claude]}
  - {name: codex, preset: codex, tags: [codex]}"
	run git burl watch --print-command claude
	assert_output_contains '"args":["burl","mcp","--dir","{worktree}"]'
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-003)" = DONE ]
	[ "$(bucket_of TASK-004)" = DONE ]
}

# README.md's section is what a reader runs: its mcpServers file, its
# commands, and a Codex table that says the same.
@test "the README's MCP section: its configuration and commands work as shown" {
	command -v mcp-inspector >/dev/null || skip "the MCP inspector is not installed"
	SRC="$BATS_TEST_DIRNAME/.."
	sed -n '/^## Agents that speak MCP/,/^## /p' "$SRC/README.md" >"$BATS_TEST_TMPDIR/section.md"
	sed -n '/^```json$/,/^```$/p' "$BATS_TEST_TMPDIR/section.md" | sed '1d;$d' >.mcp.json
	jq -e '.mcpServers.burl == {"command": "git", "args": ["burl", "mcp"]}' .mcp.json
	toml=$(sed -n '/^```toml$/,/^```$/p' "$BATS_TEST_TMPDIR/section.md")
	grep -qx 'command = "git"' <<<"$toml"
	grep -qx 'args = \["burl", "mcp"\]' <<<"$toml"
	n=0
	while IFS= read -r line; do
		MCP_INSPECTOR_SECRET_STORE=memory run bash -c "${line#\$ }"
		assert_success
		n=$((n + 1))
	done < <(grep '^\$ ' "$BATS_TEST_TMPDIR/section.md")
	[ "$n" -ge 2 ]
	assert_output_contains '\"ok\":true'
}
