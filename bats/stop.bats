#!/usr/bin/env bats
# hold, cancel and stop of a task whose run is live (DESIGN §25, §27;
# issue 40 item 7): the watch running its agent ends the run within one
# round, keeps its work so far on the task branch, and says who and why.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

teardown() {
	[ -z "${WATCH_PID:-}" ] || kill "$WATCH_PID" 2>/dev/null || true
	wait 2>/dev/null || true
}

# worker: an agent that commits part of its work, leaves more uncommitted,
# says it is at work, and then runs for five minutes.
worker() {
	agent worker "mkdir -p \$BURL_TASK && echo \"\$BURL_TASK\" >\$BURL_TASK/part.txt && git add \$BURL_TASK && git commit -qm \"part of \$BURL_TASK\"
echo more >\$BURL_TASK/more.txt
echo $AGENT_PID >>$AGENTS/pids-\$BURL_TASK
exec 1>/dev/null 2>&1
sleep 300 & echo $AGENT_BG >>$AGENTS/pids-\$BURL_TASK; wait"
	MAXP=3 TIMEOUT=10m one_agent worker
}

# at_work ID: its agent runs (both its processes are written down).
at_work() { [ "$(wc -l <"$AGENTS/pids-$1" 2>/dev/null)" = 2 ]; }

@test "hold, stop --hold and cancel of a task whose run is live end the run within one round, keep its work on the branch, and say who and why" {
	watch_repo
	# Scopes apart, so that the three run at once.
	n=0
	for t in Held Stopped Cancelled; do
		n=$((n + 1))
		git burl add "$t" --affects-glob "TASK-00$n/**" >/dev/null 2>&1
	done
	worker
	git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/watch.out" 2>&1 &
	WATCH_PID=$!
	for id in TASK-001 TASK-002 TASK-003; do wait_until 30 at_work $id; done
	git burl hold TASK-001 --reason "I take this one" >/dev/null
	git burl stop TASK-002 --hold --reason "wrong approach" >/dev/null
	git burl cancel TASK-003 --reason "not needed" >/dev/null
	for id in TASK-001 TASK-002 TASK-003; do wait_until 5 procs_gone "$AGENTS/pids-$id"; done
	wait_until 5 grep -q "TASK-003: lost the task" "$BATS_TEST_TMPDIR/watch.out"
	grep -q "TASK-001: lost the task (held by tester@bats: I take this one)" "$BATS_TEST_TMPDIR/watch.out"
	grep -q "TASK-002: lost the task (stopped by tester@bats: wrong approach)" "$BATS_TEST_TMPDIR/watch.out"
	grep -q "TASK-003: lost the task (cancelled by tester@bats: not needed)" "$BATS_TEST_TMPDIR/watch.out"
	! grep -q "lost the task: *$" "$BATS_TEST_TMPDIR/watch.out" || false
	for id in TASK-001 TASK-002; do
		wait_until 5 grep -q "$id: the run's work so far is kept on" "$BATS_TEST_TMPDIR/watch.out"
		b=$(field $id branch)
		[ "$(git show "$b:$id/part.txt")" = "$id" ]
		[ "$(git show "$b:$id/more.txt")" = more ]
		[ "$(bucket_of $id)" = READY ]
	done
	[ "$(field TASK-002 held_reason)" = "wrong approach" ]
	[ "$(bucket_of TASK-003)" = DONE ]
	[ "$(all_events | jq -r 'select(.action == "stop" and .task == "TASK-002") | .details.hold')" = true ]
	# Held, they stay away from the watch that still runs.
	sleep 1
	[ "$(wc -l <"$AGENTS/pids-TASK-001")" = 2 ]
	[ "$(wc -l <"$AGENTS/pids-TASK-002")" = 2 ]
	kill -TERM "$WATCH_PID"
	wait "$WATCH_PID" || true
	WATCH_PID=
	git burl doctor
}

@test "stop without --hold gives the task back: the next run goes on from the kept work; stop refuses what is not DOING" {
	watch_repo
	git burl add "Again" --affects-glob 'TASK-001/**' >/dev/null 2>&1
	worker
	git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/watch.out" 2>&1 &
	WATCH_PID=$!
	wait_until 30 at_work TASK-001
	run git burl stop TASK-001
	assert_success
	assert_output_contains "Stopped TASK-001"
	# The watch's next round may start the next run already, maybe in a
	# PID namespace numbered as the first's: the first run's end is watch's.
	wait_until 10 grep -q "TASK-001: run 1 of bot: lost " "$BATS_TEST_TMPDIR/watch.out"
	wait_until 10 grep -q "TASK-001: lost the task (stopped by tester@bats: stopped by tester@bats)" "$BATS_TEST_TMPDIR/watch.out"
	# Claimed again, its next run starts where the stopped one ended.
	wait_until 30 sh -c "[ \$(wc -l <'$AGENTS/pids-TASK-001') -ge 4 ]"
	b=$(field TASK-001 branch)
	git log --format=%s "$b" | grep -q "^Work so far (the run was stopped"
	kill -TERM "$WATCH_PID"
	wait "$WATCH_PID" || true
	WATCH_PID=
	run git burl stop TASK-001
	assert_failure 1
	run git burl stop TASK-009
	assert_failure 1
}

@test "a stopped run that takes its time to end keeps its work before the watch claims its task again: one run at a time" {
	watch_repo
	git burl add "Slow to end" --affects-glob 'TASK-001/**' >/dev/null 2>&1
	# The first run commits part of its work and, told to end, takes three
	# seconds to do so; the next run only records that it started.
	agent slow "echo start >>$AGENTS/runs-\$BURL_TASK
if [ \"\$BURL_ATTEMPT\" = 1 ]; then
	mkdir -p \$BURL_TASK && echo part >\$BURL_TASK/part.txt && git add \$BURL_TASK && git commit -qm part
	trap 'sleep 3; echo ended >>$AGENTS/runs-\$BURL_TASK; exit 0' TERM
	echo at-work >$AGENTS/at-work
	while :; do sleep 0.1; done
fi
echo second >$AGENTS/second
sleep 300"
	MAXP=2 TIMEOUT=10m one_agent slow
	git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/watch.out" 2>&1 &
	WATCH_PID=$!
	wait_until 30 test -e "$AGENTS/at-work"
	git burl stop TASK-001 >/dev/null
	wait_until 30 test -e "$AGENTS/second"
	# The first run had ended, and its work was kept, before the second
	# was claimed: never two runs of one task.
	[ "$(sed -n 2p "$AGENTS/runs-TASK-001")" = ended ]
	grep -q "TASK-001: run 1 of bot: lost " "$BATS_TEST_TMPDIR/watch.out"
	grep -q "TASK-001: the run's work so far is kept on" "$BATS_TEST_TMPDIR/watch.out"
	! grep -q "tampered" "$BATS_TEST_TMPDIR/watch.out" || false
	[ -z "$(all_events | jq -c 'select(.action == "run_tampered")')" ]
	[ "$(grep -c "TASK-001: claimed by" "$BATS_TEST_TMPDIR/watch.out")" = 2 ]
	kill -TERM "$WATCH_PID"
	wait "$WATCH_PID" || true
	WATCH_PID=
}
