#!/usr/bin/env bats
# A small real workload: agent-loop workers in three clones of one remote,
# with every sharing option on and the hooks installed, and a QA loop in
# one of them. It found bugs no single-verb test did (a claim's glance
# failing its owner's submit, QA needing worktrees from other machines, a
# re-claim elsewhere losing the first worker's commits).

load helpers

@test "six agent-loop workers in three clones and a QA loop finish every task, and every clone agrees" {
	new_repo
	R="$BATS_TEST_TMPDIR"
	mv "$REPO" "$R/a"
	REPO="$R/a"
	cd "$R/a"
	git burl init --hooks >/dev/null
	for key in workflow_auto_push push_main_on_approve push_task_branch_on_submit; do
		set_config $key true
	done
	set_config max_parallel 0
	git -C .burl push -q origin burl
	local n=12 i c w
	for i in $(seq 1 $n); do
		git burl add "Feature $i" --affects-glob "src/f$i/**" >/dev/null
	done
	for c in b c; do
		clone_repo "$R/$c"
		(cd "$R/$c" && git burl init --hooks >/dev/null)
	done
	cat >"$R/agent.sh" <<-'SH'
	#!/bin/sh
	n=$(echo "$BURL_TASK" | sed 's/TASK-0*//')
	mkdir -p "src/f$n"
	printf 'package f%s\n\nfunc F() int { return %s }\n' "$n" "$n" >"src/f$n/f.go"
	SH
	chmod +x "$R/agent.sh"
	local loop="$BATS_TEST_DIRNAME/../contrib/agent-loop.sh" pids=()
	for c in a b c; do
		for w in 1 2; do
			(cd "$R/$c" && BURL_LOOP_WAIT=1 BURL_ACTOR="$c$w" exec "$loop" "$R/agent.sh" >"$R/$c$w.log" 2>&1) &
			pids+=("$!")
		done
	done
	# QA in clone a, while the workers run, until every task is DONE.
	local done_n=0
	for _ in $(seq 1 240); do
		git burl sync --pull >/dev/null 2>&1 || true
		for f in .burl/.workflow/QA/TASK-*.md; do
			[ -e "$f" ] || continue
			id=$(basename "$f" | cut -c1-8)
			git burl validate "$id" >/dev/null 2>>"$R/qa.err" && git burl approve "$id" >/dev/null 2>>"$R/qa.err" || true
		done
		done_n=$(find .burl/.workflow/DONE -name 'TASK-*.md' | wc -l)
		[ "$done_n" -lt "$n" ] || break
		sleep 0.5
	done
	local rc=0 failed=""
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { rc=$?; failed="$failed worker$i:$rc"; }
	done
	[ -z "$failed" ] || { echo "workers failed:$failed" >&2; tail -n 5 "$R"/*.log >&2; return 1; }
	[ "$done_n" -eq "$n" ] || { echo "only $done_n of $n DONE" >&2; git burl status >&2; cat "$R/qa.err" >&2; return 1; }
	# origin's main: the n tasks' commits on a linear history; no task
	# branch left behind on the remote.
	[ "$(git rev-list --count origin/main)" -eq $((n + 1)) ]
	[ "$(git rev-list --merges --count origin/main)" -eq 0 ]
	[ -z "$(git ls-remote origin 'refs/heads/task-*')" ]
	for c in a b c; do
		(cd "$R/$c" && git burl sync --pull >/dev/null && git burl doctor >/dev/null) || { echo "clone $c is not healthy" >&2; (cd "$R/$c" && git burl doctor) >&2; return 1; }
		[ "$(cd "$R/$c" && git burl status --json | jq '.counts.DONE')" -eq "$n" ]
	done
}
