#!/usr/bin/env bats
# DESIGN §16: nothing a run or a gate starts outlives it, and a signal
# never leaves burl's locks behind.

setup() {
	load helpers
	load lifecycle
	load watch
	new_burl_repo
}

# gone PATTERN: no process of ours matches PATTERN any more.
gone() { ! pgrep -u "$(id -u)" -f "$1" >/dev/null; }
# running PATTERN: a process of ours matches PATTERN.
running() { pgrep -u "$(id -u)" -f "$1" >/dev/null; }

@test "Ctrl-C during approve stops its verify command's process group, rolls back and releases every lock" {
	git burl add "Feature" --affects-glob 'src/**' --verify 'sleep 27.5 && echo never' >/dev/null
	submitted TASK-001 src/feature.go 'package src' >/dev/null
	main=$(git rev-parse main)
	# As a terminal's Ctrl-C does: SIGINT to the foreground process group
	# (git and the verb), never to the command's own group.
	setsid git burl approve TASK-001 >"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	wait_until 10 running 'sleep 27.5'
	kill -INT -- "-$pid"
	# git's own exit status is git's business; burl's verb exits 130.
	wait "$pid" || true
	wait_until 5 gone 'git-burl-approve'
	wait_until 5 gone 'sleep 27.5'
	grep -q "interrupted: the verify command" "$BATS_TEST_TMPDIR/out"
	[ -z "$(ls .burl/.workflow/locks/)" ]
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(git rev-parse main)" = "$main" ]
	! grep -q "Approve FAIL" "$(task_file TASK-001)" || false
	run git burl status
	assert_output_contains "git burl validate TASK-001"
	# Nothing stands in the way of the next approve.
	run git burl doctor
	assert_success
}

@test "SIGTERM during validate stops the build and releases the task lock" {
	set_config build_command "'sleep 28.5'"
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	submitted TASK-001 src/feature.go 'package src' >/dev/null
	setsid git burl validate TASK-001 >"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	wait_until 10 running 'sleep 28.5'
	kill -TERM -- "-$pid"
	wait "$pid" || true
	wait_until 5 gone 'git-burl-validate'
	wait_until 5 gone 'sleep 28.5'
	grep -q "interrupted: the build command" "$BATS_TEST_TMPDIR/out"
	[ -z "$(ls .burl/.workflow/locks/)" ]
	! grep -q "Validate FAIL" "$(task_file TASK-001)" || false
}
