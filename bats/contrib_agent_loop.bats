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
	assert_output_contains "READY is empty: nothing left to claim after 2 task(s)"
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

@test "a submit that meets a held task lock is tried again, not given back" {
	# The agent leaves its task locked by a live "validate" for five
	# seconds, as a QA machine might while it looks at the task.
	cat >"$BATS_TEST_TMPDIR/locker.sh" <<-'SH'
	#!/bin/sh
	locks=$(git worktree list --porcelain | sed -n '1s/^worktree //p')/.burl/.workflow/locks
	lock=$locks/$BURL_TASK.lock
	(sleep 5; rm -f "$lock") >/dev/null 2>&1 &
	printf '{"owner":"qa","host":"%s","pid":%s,"created_at":"%s","action":"validate"}\n' \
		"$(uname -n)" "$!" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$lock"
	exec "$AGENT"
	SH
	chmod +x "$BATS_TEST_TMPDIR/locker.sh"
	AGENT="$AGENT" BURL_LOOP_WAIT=1 run "$LOOP" -n 1 "$BATS_TEST_TMPDIR/locker.sh"
	assert_success
	assert_output_contains "TASK-001: submit met a lock or lost a race; trying again in 1s"
	[ "$(bucket_of TASK-001)" = QA ]
}

@test "claim's exit 4 is waited out: the loop ends only when READY is empty" {
	# TASK-003 depends on TASK-001, which another worker holds: once TASK-002
	# is submitted, every READY task waits, and claim exits 4.
	git burl add "three" --affects-glob 'three/**' --depends-on TASK-001 >/dev/null
	wt=$(git burl claim TASK-001 | tail -n 1)
	BURL_LOOP_WAIT=1 "$LOOP" "$AGENT" >"$BATS_TEST_TMPDIR/loop.out" 2>&1 &
	pid=$!
	for _ in $(seq 1 120); do
		grep -q "every READY task waits" "$BATS_TEST_TMPDIR/loop.out" && break
		sleep 0.5
	done
	grep -q "TASK-003: waits for TASK-001" "$BATS_TEST_TMPDIR/loop.out" || { cat "$BATS_TEST_TMPDIR/loop.out"; false; }
	kill -0 "$pid"
	[ "$(bucket_of TASK-003)" = READY ]
	# The other worker finishes TASK-001: the loop takes TASK-003, then stops.
	(cd "$wt" && mkdir -p one && commit_file one/a.sh x && git burl submit >/dev/null && git burl approve TASK-001 >/dev/null)
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/loop.out"; false; }
	grep -q "READY is empty" "$BATS_TEST_TMPDIR/loop.out"
	[ "$(bucket_of TASK-003)" = QA ]
}
