#!/usr/bin/env bats
# git burl status (human and --json) and git burl log with its filters
# and --follow.

load helpers
load foundation

setup() {
	new_burl_repo
}

teardown() {
	# A --follow reader still running after a failed assertion.
	if [ -n "${FOLLOW_PID:-}" ]; then
		kill "$FOLLOW_PID" 2>/dev/null || true
		wait "$FOLLOW_PID" 2>/dev/null || true
	fi
}

@test "status counts per bucket and lists tasks in claim order with the next command" {
	run git burl status
	assert_success
	assert_output_contains "READY 0  DOING 0  QA 0  DONE 0  BLOCKED 0"

	add_task "Low one" --priority low
	add_task "Critical one" --priority critical
	add_task "High one" --priority high
	run git burl status
	assert_success
	assert_output_contains "READY 3  DOING 0  QA 0  DONE 0  BLOCKED 0"
	assert_output_contains "next: git burl claim TASK-002"
	# Claim order: critical, high, low.
	order=$(printf '%s\n' "$output" | grep -Eo 'TASK-00[0-9]  ' | tr -d ' ' | tr '\n' ' ')
	[ "$order" = "TASK-002 TASK-003 TASK-001 " ] || { echo "order: $order"; echo "$output"; return 1; }
}

@test "a READY task whose depends_on is not DONE says what it waits for, not claim" {
	add_task "Base"
	add_task "Builds on it" --depends-on TASK-001
	for pass in cold cached; do
		run git burl status
		assert_success
		assert_output_contains "next: waits for TASK-001 to be DONE"
		refute_output_contains "next: git burl claim TASK-002"
		assert_output_contains "next: git burl claim TASK-001"
		run git burl status --json
		assert_success
		[ "$(jq -c '.tasks[] | select(.id=="TASK-002") | [.suggest, .waiting_for]' <<<"$output")" = '["",["TASK-001"]]' ] || { echo "$pass: $output"; return 1; }
		[ "$(jq -c '.tasks[] | select(.id=="TASK-001") | has("waiting_for")' <<<"$output")" = false ]
	done
	# Once TASK-001 is DONE, TASK-002 can be claimed, and status says so.
	(cd .burl && git mv .workflow/READY/TASK-001-*.md .workflow/DONE/ && git commit -q -m "done by hand")
	run git burl status
	assert_output_contains "next: git burl claim TASK-002"
	refute_output_contains "waits for"
}

@test "status shows a held task lock with its owner" {
	add_task "Locked one"
	printf '{"owner":"worker","host":"elsewhere.invalid","pid":1,"created_at":"2020-01-01T00:00:00Z","action":"claim"}\n' >"$WF/locks/TASK-001.lock"
	printf '' >"$WF/locks/workflow.lock"
	run git burl status
	assert_success
	assert_output_contains "[locked: created"
	assert_output_contains "worker@elsewhere.invalid"
	assert_output_contains "stale"
	assert_output_contains ".burl/.workflow/locks/workflow.lock  unreadable lock file"
	# Reporting a lock never clears it.
	[ -f "$WF/locks/TASK-001.lock" ]
	[ -f "$WF/locks/workflow.lock" ]
}

@test "status --json is one JSON document with counts and every task" {
	add_task "First" --priority high --affects src/jump.go
	add_task "Second"
	git burl status --json >"$BATS_TEST_TMPDIR/out.json"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/out.json")" -eq 1 ]
	grep -q '"bucket":"READY"' "$BATS_TEST_TMPDIR/out.json"
	grep -q '"suggest":"git burl claim TASK-001"' "$BATS_TEST_TMPDIR/out.json"
	have_python || skip "python3 not installed"
	json_check "$BATS_TEST_TMPDIR/out.json" \
		'd["ok"] is True' \
		'd["counts"] == {"READY": 2, "DOING": 0, "QA": 0, "DONE": 0, "BLOCKED": 0}' \
		'[t["id"] for t in d["tasks"]] == ["TASK-001", "TASK-002"]' \
		'all(t["bucket"] == "READY" for t in d["tasks"])' \
		'd["tasks"][0]["path"] == ".burl/.workflow/READY/TASK-001-first.md"' \
		'd["tasks"][0]["suggest"] == "git burl claim TASK-001"' \
		'd["tasks"][0]["affects"] == ["src/jump.go"]' \
		'd["tasks"][0]["priority"] == "high" and d["tasks"][1]["priority"] == "medium"' \
		'd["tasks"][0]["locked"] is False' \
		'd["locks"] == [] and d["malformed"] == []'
}

@test "status takes no arguments" {
	run git burl status READY
	assert_failure 1
	assert_output_contains "takes no arguments"
	run git burl status --bogus
	assert_failure 1
	assert_output_contains "unknown flag"
	assert_output_contains "Fix: git burl status --help"
}

# An event from long ago, as another machine might have merged in.
old_event() {
	printf '{"ts":"2020-01-01T00:00:00Z","task":"TASK-001","action":"claim","actor":"old@machine"}\n' >>"$WF/events/events.ndjson"
}

@test "log shows every event; --task, --action and --since filter" {
	add_task "First"
	add_task "Second"
	old_event

	run git burl log
	assert_success
	assert_output_contains "init"
	assert_output_contains "old@machine"
	[ "$(printf '%s\n' "$output" | grep -c '  add ')" -eq 2 ]
	# Oldest first, whatever the order in the file.
	[[ "$(printf '%s\n' "$output" | head -n1)" == 2020-01-01T00:00:00Z*old@machine* ]]

	run git burl log --task TASK-001
	assert_success
	assert_output_contains "old@machine"
	assert_output_contains "title=First"
	refute_output_contains "TASK-002"
	refute_output_contains "init"

	run git burl log --task 2
	assert_success
	[ "$(printf '%s\n' "$output" | grep -c .)" -eq 1 ]
	assert_output_contains "title=Second"

	run git burl log --action add
	assert_success
	[ "$(printf '%s\n' "$output" | grep -c .)" -eq 2 ]
	refute_output_contains "init"
	refute_output_contains "claim"

	run git burl log --since 1h
	assert_success
	refute_output_contains "old@machine"
	assert_output_contains "title=First"

	run git burl log --since 2d
	assert_success
	refute_output_contains "old@machine"

	run git burl log --since 2021-06-01
	assert_success
	refute_output_contains "old@machine"
	assert_output_contains "init"

	run git burl log --since 2019-12-31
	assert_success
	assert_output_contains "old@machine"

	run git burl log --since 2020-01-01T00:00:00Z --action claim
	assert_success
	[ "$(printf '%s\n' "$output" | grep -c .)" -eq 1 ]
	assert_output_contains "old@machine"
}

@test "log rejects bad filters" {
	run git burl log --since yesterday
	assert_failure 1
	assert_output_contains '--since "yesterday" is not a time'
	run git burl log --task ../x
	assert_failure 1
	assert_output_contains "is not a task ID"
	run git burl log TASK-001
	assert_failure 1
	assert_output_contains "--task ID"
}

@test "log --action with a typo warns and suggests the action" {
	add_task "First"
	run git burl log --action ad
	assert_success
	assert_output_contains 'burl: warning: --action "ad" is not an action burl logs (did you mean add?)'
	refute_output_contains "title=First"
	# The actions Part V added are burl's own: no warning.
	for a in review review_start checks_failed run_tampered restack lock_cleared scope_denied stop; do
		run git burl log --action "$a"
		assert_success
		refute_output_contains "is not an action burl logs"
	done
}

@test "log skips a malformed line and says so" {
	add_task "First"
	printf '{"ts":"2026-01-01T00:0\n' >>"$WF/events/events.ndjson"
	add_task "Second"
	run git burl log
	assert_success
	assert_output_contains "title=First"
	assert_output_contains "title=Second"
	assert_output_contains "(1 unreadable line(s) skipped)"
}

@test "log --json is one document listing the events" {
	add_task "First"
	git burl log --json --action add >"$BATS_TEST_TMPDIR/out.json"
	have_python || skip "python3 not installed"
	json_check "$BATS_TEST_TMPDIR/out.json" \
		'd["ok"] is True' \
		'len(d["events"]) == 1' \
		'd["events"][0]["task"] == "TASK-001" and d["events"][0]["action"] == "add"' \
		'd["events"][0]["actor"] == "tester@bats"'
}

@test "log --follow prints an event appended after it started" {
	out="$BATS_TEST_TMPDIR/follow.out"
	git burl log --follow >"$out" 2>&1 &
	FOLLOW_PID=$!
	wait_for_line "$out" ' init '
	if grep -q 'TASK-001' "$out"; then
		echo "TASK-001 printed before it existed" >&2
		return 1
	fi

	add_task "Arrives later"
	wait_for_line "$out" ' add +TASK-001 .*title=Arrives later'

	# Still running until stopped.
	kill -0 "$FOLLOW_PID"
	kill "$FOLLOW_PID"
	wait "$FOLLOW_PID" || true
	FOLLOW_PID=
	[ "$(grep -c 'TASK-001' "$out")" -eq 1 ]
}

@test "log --follow --task shows only that task, as JSON lines" {
	add_task "One"
	out="$BATS_TEST_TMPDIR/follow.out"
	git burl log --follow --json --task 2 >"$out" 2>&1 &
	FOLLOW_PID=$!
	add_task "Two"
	add_task "Three"
	wait_for_line "$out" '"task":"TASK-002"'
	sleep 0.6 # a few polls: TASK-003 must not follow
	kill "$FOLLOW_PID"
	wait "$FOLLOW_PID" || true
	FOLLOW_PID=
	[ "$(grep -c . "$out")" -eq 1 ]
	[[ "$(cat "$out")" == '{"ts":"'*'"task":"TASK-002","action":"add"'* ]]
}
