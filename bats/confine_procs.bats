#!/usr/bin/env bats
# DESIGN §16: nothing a run or a gate starts outlives it, and a signal
# never leaves burl's locks behind.

setup() {
	load helpers
	load lifecycle
	load watch
	watch_repo
}

@test "Ctrl-C during approve stops its verify command's process group, rolls back and releases every lock" {
	git burl add "Feature" --affects-glob 'src/**' --verify 'sleep 27.5 && echo never' >/dev/null
	submitted TASK-001 src/feature.go 'package src' >/dev/null
	main=$(git rev-parse main)
	# As a terminal's Ctrl-C does: SIGINT to the foreground process group
	# (git and the verb), never to the command's own group.
	setsid git burl approve TASK-001 >"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	wait_until 10 has_own_proc 'sleep 27.5'
	kill -INT -- "-$pid"
	# git's own exit status is git's business; burl's verb exits 130.
	wait "$pid" || true
	wait_until 5 no_own_proc 'git-burl-approve'
	wait_until 5 no_own_proc 'sleep 27.5'
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
	wait_until 10 has_own_proc 'sleep 28.5'
	kill -TERM -- "-$pid"
	wait "$pid" || true
	wait_until 5 no_own_proc 'git-burl-validate'
	wait_until 5 no_own_proc 'sleep 28.5'
	grep -q "interrupted: the build command" "$BATS_TEST_TMPDIR/out"
	[ -z "$(ls .burl/.workflow/locks/)" ]
	! grep -q "Validate FAIL" "$(task_file TASK-001)" || false
}

@test "a daemon an agent starts with setsid does not outlive its run" {
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	# The daemon leaves the agent's process group and session, then keeps
	# writing.
	agent daemon 'setsid sh -c "while :; do date >>'"$AGENTS"'/daemon-\$BURL_TASK.log; sleep 0.1; done" </dev/null >/dev/null 2>&1 &
sleep 0.3; mkdir -p src && echo ok >src/ok.txt'
	one_agent daemon
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	log=$AGENTS/daemon-TASK-001.log
	[ -s "$log" ]
	n=$(wc -l <"$log")
	sleep 0.5
	[ "$(wc -l <"$log")" -eq "$n" ]
	no_own_proc 'daemon-TASK-001.log'
}

@test "kill -9 of the git burl watch a user started stops the supervisor, which releases its task" {
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	agent slow 'sleep 29.5'
	one_agent slow
	setsid git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	wait_until 15 has_own_proc 'sleep 29.5'
	[ "$(bucket_of TASK-001)" = DOING ]
	# $pid is git itself: the supervisor is its child.
	kill -9 "$pid"
	wait_until 20 no_own_proc 'git-burl-watch'
	wait_until 5 no_own_proc 'sleep 29.5'
	[ "$(bucket_of TASK-001)" = READY ]
	[ -z "$(ls .burl/.workflow/locks/)" ]
}

@test "Ctrl-C on watch piped into tee: the dead reader never keeps watch from releasing its task" {
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	agent slow 'sleep 31.5'
	one_agent slow
	setsid sh -c 'git burl watch --interval 100ms 2>&1 | tee "$0" >/dev/null' "$BATS_TEST_TMPDIR/tee.log" &
	pid=$!
	wait_until 15 has_own_proc 'sleep 31.5'
	# The terminal's Ctrl-C: the whole pipeline, tee included, gets SIGINT.
	kill -INT -- "-$pid"
	wait_until 20 no_own_proc 'git-burl-watch'
	wait_until 5 no_own_proc 'sleep 31.5'
	[ "$(bucket_of TASK-001)" = READY ]
	[ -z "$(ls .burl/.workflow/locks/)" ]
}

@test "a run log is capped at log_max_bytes: its head and tail kept, a marker between" {
	echo "log_max_bytes: 16384" >>.burl/.workflow/config.yaml
	git -C .burl commit -qam "small run logs"
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	agent chatty 'echo FIRST-LINE; seq 1 100000; echo LAST-LINE
mkdir -p src && echo ok >src/ok.txt'
	one_agent chatty
	run git burl watch --once --interval 100ms
	assert_success
	log=$(ls "$REPO"/.burl/.workflow/logs/TASK-001/*-watch-*.log)
	[ "$(wc -c <"$log")" -le 16600 ]
	head -n 1 "$log" | grep -qx FIRST-LINE
	grep -qx LAST-LINE "$log"
	grep -q "bytes of this run's output were cut here: log_max_bytes is 16384" "$log"
}
