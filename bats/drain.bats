#!/usr/bin/env bats
# git burl drain (DESIGN §27): every watch of the repository finishes its
# running work, claims nothing new and exits.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

teardown() {
	local p
	for p in ${WATCH_A:-} ${WATCH_B:-}; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}

# held_worker: an agent that does its task's work, says it started and
# finishes only once $AGENTS/go exists.
held_worker() {
	agent worker "mkdir -p \$BURL_TASK && echo \"\$BURL_TASK\" >\$BURL_TASK/f.txt && git add \$BURL_TASK && git commit -qm \"work of \$BURL_TASK\"
touch $AGENTS/started-\$BURL_TASK
while [ ! -e $AGENTS/go ]; do sleep 0.1; done"
	MAXP=1 TIMEOUT=2m one_agent worker
}

started() { [ "$(find "$AGENTS" -name 'started-*' | wc -l)" -eq "$1" ]; }

@test "drain: two watches land what their running agents finish, claim nothing new and exit 0; the request is gone after them" {
	watch_repo
	for n in 1 2 3 4; do
		git burl add "Task $n" --affects-glob "TASK-00$n/**" >/dev/null 2>&1
	done
	held_worker
	run git burl drain
	assert_success
	assert_output_contains "no watch runs in this repository"
	[ ! -e .git/burl/drain ]
	git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/a.out" 2>&1 &
	WATCH_A=$!
	git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/b.out" 2>&1 &
	WATCH_B=$!
	wait_until 60 started 2
	running=$(find "$AGENTS" -name 'started-*' -printf '%f\n' | sed 's/^started-//' | sort)
	run git burl drain --json
	assert_success
	[ "$(jq '.watchers | length' <<<"$output")" = 2 ]
	[ -e .git/burl/drain ]
	run git burl status
	assert_output_contains "draining: 2 watch(es) claim nothing new"
	[ "$(git burl status --json | jq -r .draining.watchers)" = 2 ]
	wait_until 10 grep -q "draining (asked by tester@bats" "$BATS_TEST_TMPDIR/a.out"
	wait_until 10 grep -q "draining (asked by tester@bats" "$BATS_TEST_TMPDIR/b.out"
	touch "$AGENTS/go"
	rc=0
	wait "$WATCH_A" || rc=$?
	WATCH_A=
	[ "$rc" = 0 ]
	wait "$WATCH_B" || rc=$?
	WATCH_B=
	[ "$rc" = 0 ]
	grep -q "drained: every run finished; exiting" "$BATS_TEST_TMPDIR/a.out"
	grep -q "drained: every run finished; exiting" "$BATS_TEST_TMPDIR/b.out"
	# What ran landed; nothing else was claimed.
	for id in $running; do [ "$(bucket_of "$id")" = DONE ]; done
	[ "$(find "$AGENTS" -name 'started-*' | wc -l)" = 2 ]
	[ "$(git burl status --json | jq '.counts.READY')" = 2 ]
	[ "$(all_events | jq -s '[.[] | select(.action == "claim")] | length')" = 2 ]
	[ "$(all_events | jq -r 'select(.action == "drain") | "\(.task) \(.details.watchers)"')" = "null 2" ]
	[ ! -e .git/burl/drain ]
	run git burl status
	refute_output_contains "draining"
	# The next watch works as usual.
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(git burl status --json | jq '.counts.DONE')" = 4 ]
}

@test "drain --wait returns once the watch exited; a request no live watch is left to honour is dropped" {
	watch_repo
	git burl add "Task 1" --affects-glob "TASK-001/**" >/dev/null 2>&1
	held_worker
	git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/a.out" 2>&1 &
	WATCH_A=$!
	wait_until 60 started 1
	(sleep 1 && touch "$AGENTS/go") &
	run git burl drain --wait --json
	assert_success
	[ "$(jq -r '.exited' <<<"$output")" = true ]
	[ "$(bucket_of TASK-001)" = DONE ]
	wait "$WATCH_A"
	WATCH_A=
	# A watch killed while draining leaves the request behind: the next
	# command that reads it drops it, and the next watch works.
	git burl add "Task 2" --affects-glob "TASK-002/**" >/dev/null 2>&1
	printf '{"by":"x","at":"2026-11-28T00:00:00Z"}\n' >.git/burl/drain
	run git burl status
	refute_output_contains "draining"
	[ ! -e .git/burl/drain ]
	rm -f "$AGENTS/go"
	(sleep 1 && touch "$AGENTS/go") &
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-002)" = DONE ]
}
