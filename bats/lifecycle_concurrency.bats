#!/usr/bin/env bats
# PRD 18.2 / DESIGN §9: many processes running `git burl claim` at once never
# claim a task twice, and a loser exits 1 (nothing left) or 4 (lost a race).

setup() {
	load helpers
	load lifecycle
}

# race ROUND TASKS: a fresh repository with TASKS READY tasks and 16
# concurrent `git burl claim`; checks every invariant a user relies on.
# Round 1 uses the claim lock, later rounds do not; from round 2 on, origin's
# main is a commit ahead, so every claimer races to fast-forward local main
# (checked out in round 2, checked out nowhere in round 3).
race() {
	local round=$1 ntasks=$2 claimers=16 i pid
	rm -rf "$BATS_TEST_TMPDIR/origin.git" "$BATS_TEST_TMPDIR/repo" "$BATS_TEST_TMPDIR/round" "$BATS_TEST_TMPDIR/other"
	cd "$BATS_TEST_TMPDIR" && new_burl_repo
	set_config max_parallel 0
	[ "$round" -eq 1 ] || set_config use_global_claim_lock false
	for i in $(seq 1 "$ntasks"); do
		git burl add "Task $i" --affects "file$i.txt" >/dev/null
	done
	local base
	base=$(git rev-parse main)
	if [ "$round" -ge 2 ]; then
		clone_repo "$BATS_TEST_TMPDIR/other"
		(cd "$BATS_TEST_TMPDIR/other" && commit_file elsewhere.txt "pushed from another clone" && git push -q origin main)
		base=$(git ls-remote origin refs/heads/main | cut -f1)
	fi
	[ "$round" -ne 3 ] || git switch -q -c experiment

	mkdir "$BATS_TEST_TMPDIR/round"
	local pids=()
	for i in $(seq 1 "$claimers"); do
		git burl claim >"$BATS_TEST_TMPDIR/round/out.$i" 2>"$BATS_TEST_TMPDIR/round/err.$i" &
		pids+=("$!")
	done
	local wins=0 codes=""
	for i in $(seq 1 "$claimers"); do
		pid=${pids[$((i - 1))]}
		local rc=0
		wait "$pid" || rc=$?
		codes="$codes $rc"
		case $rc in
		0) wins=$((wins + 1)) ;;
		1)
			# Only when there really was nothing left for this process.
			[ "$ntasks" -lt "$claimers" ] || { echo "round $round: claimer $i exited 1 with tasks to spare:" >&2; cat "$BATS_TEST_TMPDIR/round/err.$i" >&2; return 1; }
			grep -q "Nothing to claim" "$BATS_TEST_TMPDIR/round/err.$i" || { cat "$BATS_TEST_TMPDIR/round/err.$i" >&2; return 1; }
			;;
		4) grep -q "lock" "$BATS_TEST_TMPDIR/round/err.$i" || { cat "$BATS_TEST_TMPDIR/round/err.$i" >&2; return 1; } ;;
		*)
			echo "round $round: claimer $i exited $rc:" >&2
			cat "$BATS_TEST_TMPDIR/round/err.$i" >&2
			return 1
			;;
		esac
	done
	echo "round $round: $ntasks tasks, exit codes:$codes" >&2
	[ "$wins" -ge 1 ]

	# Every winner printed its own worktree, on the branch of the task it got.
	local claimed doing
	claimed=$(for i in $(seq 1 "$claimers"); do grep -o '^Claimed TASK-[0-9]*' "$BATS_TEST_TMPDIR/round/out.$i" | cut -d' ' -f2; done | sort)
	[ "$(printf '%s\n' "$claimed" | grep -c .)" -eq "$wins" ]
	[ -z "$(printf '%s\n' "$claimed" | uniq -d)" ] || { echo "claimed twice: $(printf '%s\n' "$claimed" | uniq -d)" >&2; return 1; }
	local wts
	wts=$(for i in $(seq 1 "$claimers"); do [ -s "$BATS_TEST_TMPDIR/round/out.$i" ] && tail -n 1 "$BATS_TEST_TMPDIR/round/out.$i"; done | sort)
	[ -z "$(printf '%s\n' "$wts" | uniq -d)" ]
	for i in $(seq 1 "$claimers"); do
		[ -s "$BATS_TEST_TMPDIR/round/out.$i" ] || continue
		local id wt
		id=$(grep -o '^Claimed TASK-[0-9]*' "$BATS_TEST_TMPDIR/round/out.$i" | cut -d' ' -f2)
		wt=$(tail -n 1 "$BATS_TEST_TMPDIR/round/out.$i")
		[ "$(git -C "$wt" symbolic-ref --short HEAD)" = "$(field "$id" branch)" ]
	done

	# DOING holds exactly the winners; no task file is in two buckets.
	doing=$(task_ids DOING | sort)
	[ "$doing" = "$claimed" ]
	[ -z "$(task_ids | sort | uniq -d)" ]
	[ "$(task_ids | wc -l)" -eq "$ntasks" ]
	[ "$(task_branches | wc -l)" -eq "$wins" ]
	[ "$(git worktree list | grep -c '/.worktrees/')" -eq "$wins" ]
	[ "$(all_events | grep -c '"action":"claim"')" -eq "$wins" ]
	[ -z "$(locks)" ]
	[ -z "$(git -C "$REPO/.burl" status --porcelain)" ]
	# Everyone started from origin's main, and local main caught up with it.
	[ "$(git rev-parse main)" = "$base" ]
	for i in $doing; do
		[ "$(field "$i" base_sha)" = "$base" ]
	done
	[ -z "$(git status --porcelain)" ]
	if [ "$ntasks" -lt "$claimers" ]; then
		[ "$wins" -eq "$ntasks" ]
	fi
}

@test "16 concurrent claims: no task claimed twice, losers exit 1 or 4 (3 rounds)" {
	race 1 24
	race 2 24
	race 3 10
}

# approve_all ORDER...: approve every task in ORDER, recording exit codes.
approve_all() {
	local out=$1 id rc
	shift
	for id in "$@"; do
		rc=0
		git burl approve "$id" >/dev/null 2>>"$out.err" || rc=$?
		echo "$id $rc" >>"$out"
	done
}

@test "two approvers on one machine, in opposite orders, take turns on main: every task DONE, main linear" {
	cd "$BATS_TEST_TMPDIR" && new_burl_repo
	set_config max_parallel 0
	local i ids=()
	for i in $(seq 1 8); do
		git burl add "Task $i" --affects "f$i.txt" >/dev/null
		ids+=("$(printf 'TASK-%03d' "$i")")
	done
	for i in $(seq 1 8); do
		submitted "${ids[$((i - 1))]}" "f$i.txt" "task $i" >/dev/null
	done
	base=$(git rev-parse main)
	approve_all "$BATS_TEST_TMPDIR/up" "${ids[@]}" &
	local up=$!
	approve_all "$BATS_TEST_TMPDIR/down" $(printf '%s\n' "${ids[@]}" | sort -r)
	wait "$up"
	# Each attempt either approved (or found the task DONE already) or met
	# the other approver's task lock; never "main moved meanwhile".
	if grep -v ' [04]$' "$BATS_TEST_TMPDIR/up" "$BATS_TEST_TMPDIR/down"; then
		cat "$BATS_TEST_TMPDIR/up.err" "$BATS_TEST_TMPDIR/down.err" >&2
		return 1
	fi
	[ "$(task_ids DONE | wc -l)" -eq 8 ]
	[ "$(git rev-list --count "$base..main")" -eq 8 ]
	[ "$(git rev-list --merges --count "$base..main")" -eq 0 ]
	[ -z "$(locks)" ]
	[ -z "$(git status --porcelain)" ]
}
