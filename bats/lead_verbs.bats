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

# asker: an agent that asks for $BURL_TASK.go outside its scope the first
# time, as the README's scope section shows (writing it anyway), then keeps
# to what its scope allows.
asker() {
	agent asker 'f="$BURL_TASK.go"; mkdir -p src && echo "$BURL_TASK" >"src/$BURL_TASK.txt"
if [ "$BURL_ATTEMPT" = 1 ]; then git burl scope "$BURL_TASK" --affects "$f" --reason "I need $f" >/dev/null 2>&1; echo changed >"$f"; fi
if grep -qx "  - $f" "$BURL_TASK_FILE"; then echo changed >"$f"; elif [ "$BURL_ATTEMPT" != 1 ]; then git rm -qf "$f" 2>/dev/null; rm -f "$f"; fi'
	SANDBOX=none RETRIES=3 one_agent asker
}

@test "scope --grant and --deny answer an agent's scope request: status names both exact commands; either gives the task back to its agent" {
	watch_repo
	git burl add "Needs base" --affects-glob "src/**" >/dev/null
	git burl add "Wants base too" --affects-glob "src/**" >/dev/null
	asker
	git burl watch --once --interval 100ms >/dev/null 2>&1 || true
	for id in TASK-001 TASK-002; do
		[ "$(bucket_of $id)" = BLOCKED ]
		[ "$(field $id scope_request)" != null ]
	done
	run git burl status
	assert_output_contains 'git burl scope TASK-001 --grant, or refuse it with git burl scope TASK-001 --deny "why"'
	refute_output_contains "git burl scope TASK-001 ... --reason"
	run git burl show TASK-001
	assert_output_contains "git burl scope TASK-001 --grant"
	run git burl scope TASK-001 --grant --affects x
	assert_failure 1
	run git burl scope TASK-003 --grant
	assert_failure
	run git burl scope TASK-001 --grant --json
	assert_success
	jq -e '.granted == true and .unblocked == true and .change.added.affects == ["TASK-001.go"] and .task.bucket == "READY"' <<<"$output"
	[ "$(field TASK-001 scope_request)" = null ]
	grep -qx "  - TASK-001.go" "$(task_file TASK-001)"
	run git burl scope TASK-002 --deny "the root is not yours"
	assert_success
	assert_output_contains "Refused TASK-002's scope request (+ affects: TASK-002.go"
	assert_output_contains "TASK-002 is back in READY"
	[ "$(field TASK-002 scope_request)" = null ]
	grep -q "Refused because: the root is not yours" "$(task_file TASK-002)"
	run git burl scope TASK-002 --grant
	assert_failure 1
	assert_output_contains "TASK-002 has no open scope request"
	[ "$(all_events | jq -r 'select(.action == "scope_denied" and .task == "TASK-002") | .details.reason')" = "the root is not yours" ]
	# Both go back to their agent: the granted one lands its file, the refused one lands without it.
	git burl watch --once --interval 100ms >"$BATS_TEST_TMPDIR/w2" 2>&1 || { cat "$BATS_TEST_TMPDIR/w2"; git burl show TASK-002; false; }
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(bucket_of TASK-002)" = DONE ]
	grep -q "Refused because: the root is not yours" "$AGENTS/prompts/TASK-002-2.md"
	[ "$(git show main:TASK-001.go)" = changed ]
	! git cat-file -e main:TASK-002.go 2>/dev/null || false
	git burl doctor
}

teardown() {
	[ -z "${WATCH_PID:-}" ] || kill "$WATCH_PID" 2>/dev/null || true
	wait 2>/dev/null || true
}

@test "kill -9 during the queue's approve: the locks it left are cleared by the next burl that needs them, and a restarted watch lands the task" {
	watch_repo
	set_config build_command "sleep 2"
	agent eager 'mkdir -p src && echo "$BURL_TASK" >"src/$BURL_TASK.txt"'
	one_agent eager
	git burl add "Lands" --affects-glob 'src/**' >/dev/null 2>&1
	git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/watch.out" 2>&1 &
	WATCH_PID=$!
	wait_until 30 test -f .burl/.workflow/locks/main.lock
	# watch first: it would start the next approve --all the moment it saw
	# this one die. The approver, left running its 2 s build, holds the
	# lock then.
	kill -9 "$WATCH_PID"
	wait "$WATCH_PID" 2>/dev/null || true
	WATCH_PID=
	approver=$(jq -r .pid .burl/.workflow/locks/main.lock)
	[ "$(jq -r .action .burl/.workflow/locks/main.lock)" = approve ]
	kill -9 "$approver" 2>/dev/null || true
	# SIGKILL is delivered, not waited for: the approver is dead once it is
	# gone or a zombie.
	wait_until 10 sh -c "! kill -0 $approver 2>/dev/null || grep -q '^State:.*zombie' /proc/$approver/status"
	[ -f .burl/.workflow/locks/main.lock ]
	[ "$(bucket_of TASK-001)" = QA ]
	# What status suggests is not refused by the dead lock.
	run git burl status
	assert_output_contains "the next burl command that needs it clears it"
	run git burl watch --once --interval 100ms
	assert_success
	assert_output_contains "cleared lock .burl/.workflow/locks/main.lock"
	[ "$(bucket_of TASK-001)" = DONE ]
	git cat-file -e main:src/TASK-001.txt
	[ "$(all_events | jq -r 'select(.action == "lock_cleared" and .details.lock == "main") | .details.content.pid')" = "$approver" ]
	[ -z "$(locks)" ]
	git burl doctor
}

@test "a failed run's one-line summary is a whole sentence of at most 120 characters carrying its last output line; a long scope failure is not cut" {
	watch_repo
	git burl add "Limited" --affects-glob 'src/**' >/dev/null 2>&1
	git burl add "Stray" --affects src/ok.txt >/dev/null 2>&1
	agent limited 'if [ "$BURL_TASK" = TASK-001 ]; then echo "working on it"; echo "Error: rate limit reached for this model; try again at 17:00 UTC"; exit 1; fi
mkdir -p src docs; echo ok >src/ok.txt
for n in 1 2 3 4 5 6; do echo x >"docs/a-rather-long-stray-file-name-number-$n.md"; done'
	RETRIES=1 one_agent limited
	git burl watch --once --interval 100ms >"$BATS_TEST_TMPDIR/out" 2>&1 || true
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ "$(bucket_of TASK-002)" = BLOCKED ]
	one=$(git burl show TASK-001 --json | jq -r .task.blocked_summary)
	[ "$one" = "2 run(s) of agent bot failed, the last with exit 1: Error: rate limit reached for this model; try again at 17:00 UTC" ]
	two=$(git burl show TASK-002 --json | jq -r .task.blocked_summary)
	[ "${#two}" -le 120 ]
	[[ $two == "6 file(s) outside TASK-002's scope; 2 run(s) of agent bot failed." ]]
	run git burl status
	assert_output_contains "reason: $one"
	assert_output_contains "reason: $two"
	refute_output_contains "…"
	grep -q "TASK-001: BLOCKED: $one" "$BATS_TEST_TMPDIR/out"
}
