#!/usr/bin/env bats
# contrib/agent-loop.sh: claim → agent → commit → submit, and what happens
# to the task when a step fails.

load helpers

setup() {
	new_burl_repo
	git burl hooks install >/dev/null
	git burl add "one" --affects-glob 'one/**' >/dev/null
	git burl add "two" --affects-glob 'two/**' >/dev/null
	LOOP="$BATS_TEST_DIRNAME/../contrib/agent-loop.sh"
	AGENT="$BATS_TEST_TMPDIR/agent.sh"
	# The agent writes into its task's directory (task-001-one -> one/) what
	# $AGENT_WRITES says, and exits with $AGENT_EXIT.
	cat >"$AGENT" <<-'SH'
	#!/bin/sh
	d=$(git symbolic-ref --short HEAD | cut -d- -f3)
	mkdir -p "$d"
	printf '%s\n' "${AGENT_WRITES:-work for $BURL_TASK}" >"$d/out.sh"
	test -f "$BURL_TASK_FILE" || { echo "no task file: $BURL_TASK_FILE" >&2; exit 9; }
	exit "${AGENT_EXIT:-0}"
	SH
	chmod +x "$AGENT"
}

@test "the loop submits every task and stops when nothing is left" {
	run "$LOOP" "$AGENT"
	assert_success
	assert_output_contains "nothing left to claim after 2 task(s)"
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(bucket_of TASK-002)" = QA ]
	[ "$(git log -1 --format='%(trailers:key=Burl-Task,valueonly)' task-002-two | sed '/^$/d')" = TASK-002 ]
}

@test "-n stops after that many tasks" {
	run "$LOOP" -n 1 "$AGENT"
	assert_success
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(bucket_of TASK-002)" = READY ]
}

@test "a stub blocked at commit gives the task back and exits 2" {
	AGENT_WRITES='# TODO: write the real thing' run "$LOOP" "$AGENT"
	assert_failure 2
	assert_output_contains "Cannot commit to TASK-001"
	assert_output_contains "releasing TASK-001"
	[ "$(bucket_of TASK-001)" = READY ]
	# The work is kept for the next attempt.
	[ -f "$REPO/.worktrees/task-001-one/one/out.sh" ]
}

@test "a failing agent gives the task back and the loop exits with its code" {
	AGENT_EXIT=7 run "$LOOP" "$AGENT"
	assert_failure 7
	assert_output_contains "the agent exited 7"
	[ "$(bucket_of TASK-001)" = READY ]
	[ "$(bucket_of TASK-002)" = READY ]
}
