#!/usr/bin/env bats
# The lead's verbs (DESIGN §25, §27; issue 40 items 4, 7, 8, 9): a held
# task is the human's (claim --force, never an agent's over MCP), scope
# requests are answered with scope --grant / --deny, dead locks are
# cleared by the next burl that needs them, and summaries are whole
# sentences that carry a failed run's last output line.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bats","version":"1"}}}'
INITED='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# mcp_claim ID: the answer of git burl mcp to a claim of ID, as an agent's
# client sends it.
mcp_claim() {
	printf '%s\n' "$INIT" "$INITED" \
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"burl\",\"arguments\":{\"action\":\"claim\",\"cwd\":\"$REPO\",\"id\":\"$1\"}}}" |
		(cd "$BATS_TEST_TMPDIR" && git burl mcp) | grep '"id":2'
}

@test "a held task refuses claim ID to an agent over MCP and to a human without --force; claim ID --force takes it" {
	new_burl_repo
	git burl add "Mine" --affects m.txt >/dev/null
	git burl hold TASK-001 --reason "I do this one myself" >/dev/null
	answer=$(mcp_claim TASK-001)
	jq -e '.result.isError == true' <<<"$answer"
	[[ "$(jq -r '.result.content[0].text' <<<"$answer")" == *"held by a human"* ]]
	[ "$(bucket_of TASK-001)" = READY ]
	run git burl claim TASK-001
	assert_failure 4
	assert_output_contains "held by a human: I do this one myself"
	assert_output_contains "git burl claim TASK-001 --force"
	[ "$(bucket_of TASK-001)" = READY ]
	# Inside a watch run --force is not a human's word.
	run env BURL_WATCHER=w@h git burl claim TASK-001 --force
	assert_failure 4
	run git burl claim --force
	assert_failure 1
	run git burl claim TASK-001 --force
	assert_success
	[ "$(bucket_of TASK-001)" = DOING ]
}
