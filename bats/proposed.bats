#!/usr/bin/env bats
# DESIGN §27: agents propose work. git burl add inside a watch run, and the
# MCP action propose, create a task in PROPOSED with discovered_from; no
# agent claims it until a human runs git burl accept ID (or cancel).

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	load lifecycle
	load watch
}

# proposing_agent: an agent that, on TASK-001 only, proposes a follow-up
# with git burl add and records what add printed; every run writes its
# task's file.
proposing_agent() {
	agent proposer "if [ \"\$BURL_TASK\" = TASK-001 ]; then
  git burl add 'Cache the parsed config' --affects-glob 'src/**' --description 'parsing runs on every request' >$AGENTS/add.out 2>&1
  echo \$? >$AGENTS/add.rc
fi
mkdir -p src && echo \"\$BURL_TASK\" >src/\$BURL_TASK.txt"
	one_agent proposer
}

# lead_accepts: the proposal waits for the lead, who accepts it; then a
# watch lands it.
lead_accepts() {
	[ "$(cat "$AGENTS/add.rc")" = 0 ]
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(bucket_of TASK-002)" = PROPOSED ]
	[ "$(field TASK-002 discovered_from)" = TASK-001 ]
	[ -n "$(field TASK-002 proposed_by)" ]
	[ "$(field TASK-002 title)" = "Cache the parsed config" ]
	grep -q 'parsing runs on every request' "$(task_file TASK-002)"
	all_events | jq -e -s 'map(select(.action == "add" and .task == "TASK-002"))[0].details | .bucket == "PROPOSED" and .discovered_from == "TASK-001"'

	# No agent claims it: a watch finds nothing to do.
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-002)" = PROPOSED ]
	[ ! -e "$AGENTS/prompts/TASK-002-1.md" ]
	# Nor a claim by its ID, which names the human's command.
	run git burl claim TASK-002
	assert_failure 1
	assert_output_contains "TASK-002 is PROPOSED"
	assert_output_contains "git burl accept TASK-002"
	# status, show and inbox list it, with the command that accepts it.
	run git burl status
	assert_output_contains "PROPOSED 1"
	assert_output_contains "next: git burl accept TASK-002"
	[ "$(state_of TASK-002)" = proposed ]
	run git burl show TASK-002
	assert_output_contains "discovered_from: TASK-001"
	run git burl inbox --json
	jq -e '.items | map(select(.kind == "proposed")) == [{"kind":"proposed","task":"TASK-002","title":"Cache the parsed config","summary":.[0].summary,"command":"git burl accept TASK-002"}]' <<<"$output"
	# The printed command runs as printed.
	cmd=$(jq -r '.items[] | select(.kind == "proposed") | .command' <<<"$output")
	run bash -c "$cmd"
	assert_success
	assert_output_contains "Accepted TASK-002: PROPOSED → READY"
	[ "$(bucket_of TASK-002)" = READY ]
	[ "$(field TASK-002 proposed_by)" = null ]
	[ "$(field TASK-002 discovered_from)" = TASK-001 ]
	all_events | jq -e -s 'map(select(.action == "accept"))[0] | .task == "TASK-002" and .details.from == "PROPOSED" and .details.to == "READY"'
	run git burl doctor
	assert_success
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-002)" = DONE ]
}

@test "an agent under watch (sandboxed) proposes with git burl add; no agent claims it until the lead accepts it" {
	need_bwrap
	watch_repo
	git burl add "Parse the config" --affects-glob 'src/**' >/dev/null
	proposing_agent
	run git burl watch --once --interval 100ms
	assert_success
	cat "$AGENTS/add.out" >&2
	grep -q "watch records it in PROPOSED when this run ends" "$AGENTS/add.out"
	assert_output_contains "the agent proposed TASK-002"
	lead_accepts
}

@test "an unconfined agent under watch (sandbox: none) proposes with git burl add: PROPOSED at once, discovered from its task" {
	watch_repo
	git burl add "Parse the config" --affects-glob 'src/**' >/dev/null
	SANDBOX=none proposing_agent
	run git burl watch --once --interval 100ms
	assert_success
	cat "$AGENTS/add.out" >&2
	grep -q "Proposed TASK-002 in PROPOSED" "$AGENTS/add.out"
	grep -q "discovered from TASK-001" "$AGENTS/add.out"
	lead_accepts
}

@test "MCP propose from a task's worktree: PROPOSED, discovered from that task; cancel ends a proposal" {
	new_burl_repo
	git burl add "Implement jump" --affects-glob 'src/**' >/dev/null
	wt=$(claim_wt TASK-001)
	init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bats","version":"1"}}}'
	inited='{"jsonrpc":"2.0","method":"notifications/initialized"}'
	call=$(jq -cn --arg cwd "$wt" '{jsonrpc:"2.0",id:2,method:"tools/call",params:{name:"burl",arguments:{action:"propose",cwd:$cwd,title:"Double jump",reason:"the level needs it",globs:["src/**"]}}}')
	answer=$(printf '%s\n' "$init" "$inited" "$call" | git burl mcp | tail -n 1)
	jq -e '.id == 2 and (.result.isError | not)' <<<"$answer"
	jq -r '.result.content[0].text' <<<"$answer" | jq -e '.task.id == "TASK-002"'
	[ "$(bucket_of TASK-002)" = PROPOSED ]
	[ "$(field TASK-002 discovered_from)" = TASK-001 ]
	grep -q 'the level needs it' "$(task_file TASK-002)"
	grep -qx '  - src/\*\*' "$(task_file TASK-002)"
	# A claim without an ID passes it over.
	git burl release TASK-001 >/dev/null
	git burl edit TASK-001 --priority low >/dev/null
	git burl edit TASK-002 --priority critical >/dev/null
	run git burl claim
	assert_success
	[ "$(bucket_of TASK-002)" = PROPOSED ]
	[ "$(bucket_of TASK-001)" = DOING ]
	run git burl cancel TASK-002 --reason "not now"
	assert_success
	[ "$(bucket_of TASK-002)" = DONE ]
	[ "$(field TASK-002 resolution)" = cancelled ]
	run git burl status --json
	jq -e '.counts | has("PROPOSED") | not' <<<"$output"
}

@test "add --propose outside a run; accept refuses what is not PROPOSED; a workflow without proposals keeps its five buckets" {
	new_burl_repo
	git burl add "One" >/dev/null
	run git burl status
	assert_output_contains "READY 1  DOING 0  QA 0  DONE 0  BLOCKED 0"
	refute_output_contains PROPOSED
	run --separate-stderr git burl add "Two" --propose --discovered-from 1 --json
	assert_success
	jq -e '.task.id == "TASK-002"' <<<"$output"
	[ "$(bucket_of TASK-002)" = PROPOSED ]
	[ "$(field TASK-002 discovered_from)" = TASK-001 ]
	run git burl add "Three" --discovered-from 1
	assert_failure 1
	run git burl accept TASK-001
	assert_failure 1
	assert_output_contains "TASK-001 is in READY; accept needs it in PROPOSED"
	run --separate-stderr git burl status --bucket proposed --json
	assert_success
	jq -e '[.tasks[].id] == ["TASK-002"]' <<<"$output"
	run git burl doctor
	assert_success
	[ "$(task_ids | sort | tr '\n' ' ')" = "TASK-001 TASK-002 " ]
}
