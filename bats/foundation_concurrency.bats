#!/usr/bin/env bats
# Many agents adding tasks at once: no shared IDs, no lost tasks, one
# commit each, nothing left locked.

load helpers
load foundation

@test "20 concurrent adds get 20 distinct IDs, 20 files and 20 commits" {
	new_burl_repo
	commits=$(count_commits)
	n=20

	pids=()
	for i in $(seq 1 "$n"); do
		git burl add "parallel task $i" >"$BATS_TEST_TMPDIR/add.$i.out" 2>&1 &
		pids+=("$!")
	done
	retry=()
	for i in $(seq 1 "$n"); do
		rc=0
		wait "${pids[$((i - 1))]}" || rc=$?
		case $rc in
		0) ;;
		4) retry+=("$i") ;; # lost the lock race: allowed, retried below
		*)
			echo "add $i exited $rc (want 0 or 4):" >&2
			cat "$BATS_TEST_TMPDIR/add.$i.out" >&2
			return 1
			;;
		esac
	done
	for i in "${retry[@]}"; do
		for attempt in 1 2 3 4 5 6 7 8 9 10; do
			rc=0
			git burl add "parallel task $i" >"$BATS_TEST_TMPDIR/add.$i.out" 2>&1 || rc=$?
			[ "$rc" -eq 0 ] && break
			[ "$rc" -eq 4 ] || { echo "retry of add $i exited $rc" >&2; cat "$BATS_TEST_TMPDIR/add.$i.out" >&2; return 1; }
			sleep 0.2
		done
		[ "$rc" -eq 0 ] || { echo "add $i still locked after $attempt tries" >&2; return 1; }
	done

	# Exactly TASK-001..TASK-020, one file each, every title once.
	ids=$(ls "$WF/READY" | grep -Eo '^TASK-[0-9]+' | LC_ALL=C sort | tr '\n' ' ')
	want=$(for i in $(seq 1 "$n"); do printf 'TASK-%03d ' "$i"; done)
	[ "$ids" = "$want" ] || { echo "ids:  $ids"; echo "want: $want"; return 1; }
	[ "$(ls "$WF/READY" | grep -c '\.md$')" -eq "$n" ]
	for i in $(seq 1 "$n"); do
		c=$(grep -lx "title: parallel task $i" "$WF"/READY/*.md | wc -l)
		[ "$c" -eq 1 ] || { echo "title 'parallel task $i' is in $c files" >&2; return 1; }
	done
	# Each file's id matches its name.
	for f in "$WF"/READY/TASK-*.md; do
		id=$(basename "$f" | grep -Eo '^TASK-[0-9]+')
		grep -qx "id: $id" "$f" || { echo "$f does not say id: $id" >&2; return 1; }
	done

	# One add commit per task, each naming a different ID; nothing uncommitted.
	[ "$(count_commits)" -eq $((commits + n)) ]
	subjects=$(git -C .burl log --format=%s "-$n")
	[ "$(printf '%s\n' "$subjects" | grep -c '^burl: add TASK-')" -eq "$n" ]
	[ "$(printf '%s\n' "$subjects" | grep -Eo 'TASK-[0-9]+' | sort -u | wc -l)" -eq "$n" ]
	[ -z "$(git -C .burl status --porcelain)" ]
	[ -z "$(git status --porcelain)" ]

	# The event log has every add, on its own line.
	[ "$(all_events | grep -c '"action":"add"')" -eq "$n" ]
	run git burl log --action add
	assert_success
	refute_output_contains "unreadable"

	# No lock left behind.
	[ -z "$(ls "$WF/locks")" ]
}

# lock_body PID: a workflow lock as burl writes it, held by PID on this host.
lock_body() {
	printf '{"owner":"ghost","host":"%s","pid":%d,"created_at":"%s","action":"add"}\n' \
		"$(uname -n)" "$1" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}

@test "add queues behind a workflow lock until its holder releases it" {
	new_burl_repo
	lock_body $$ >"$WF/locks/workflow.lock"
	(
		sleep 1
		rm -f "$WF/locks/workflow.lock"
	) &
	releaser=$!
	run git burl add "Waited for the lock"
	wait "$releaser"
	assert_success
	[ -f "$WF/READY/TASK-001-waited-for-the-lock.md" ]
}

@test "add behind the workflow lock of a dead process clears it with one line and a lock_cleared event, and goes on (DESIGN §25)" {
	new_burl_repo
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	lock_body "$dead" >"$WF/locks/workflow.lock"

	SECONDS=0
	run git burl add "Behind a dead lock"
	assert_success
	[ "$SECONDS" -lt 10 ] || { echo "took ${SECONDS}s to clear a dead holder"; return 1; }
	[ "$(grep -c '^burl: cleared lock' <<<"$output")" = 1 ]
	assert_output_contains "cleared lock .burl/.workflow/locks/workflow.lock"
	assert_output_contains "ghost@"
	assert_output_contains "no longer running"
	[ ! -f "$WF/locks/workflow.lock" ]
	[ "$(bucket_of TASK-001)" = READY ]
	git burl log --action lock_cleared | grep -q workflow
}

@test "a dead process's workflow lock over uncommitted workflow files is not cleared: exit 4 names the files and the repair" {
	new_burl_repo
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	lock_body "$dead" >"$WF/locks/workflow.lock"
	printf 'half-written\n' >"$WF/READY/TASK-009-half.md"
	head=$(burl_head)

	run git burl add "Blocked"
	assert_failure 4
	assert_output_contains "doctor --repair --force"
	[ -f "$WF/locks/workflow.lock" ]
	[ "$(burl_head)" = "$head" ]
}
