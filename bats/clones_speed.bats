#!/usr/bin/env bats
# DESIGN §25 (issue 40.11): three clones running git burl watch --once
# against one origin land every task, and faster than one clone does the
# same backlog. The agents sleep long enough for parallelism to dominate:
# with two agent slots a clone, one clone runs the six tasks in three
# rounds, three clones in one, and what the three spend racing each other
# for the remote (lost pushes, main moving under a landing) must stay well
# under the two rounds they save, also on a loaded machine.
# contrib/bench/clones.sh measures the same at 40 tasks (make bench).

load helpers
load lifecycle
load watch

# speed_origin DIR N SECS K: a bare origin DIR/origin.git with N tasks
# (task i sleeps SECS, then writes fi.txt), auto_approve, auto-push and
# push_main_on_approve, task branches not pushed on submit (the default);
# K clones of it in DIR/a, DIR/b, ..., each trusting the agent.
speed_origin() {
	local d=$1 n=$2 secs=$3 k=$4 i c names=(b c d)
	mkdir -p "$d"
	git init -q --bare "$d/origin.git"
	git clone -q "$d/origin.git" "$d/a" 2>/dev/null
	REPO="$d/a"
	cd "$REPO" || return 1
	seed_repo
	git push -q origin main
	git burl init >/dev/null
	sed -i -e 's/^workflow_auto_push: false/workflow_auto_push: true/' -e 's/^push_main_on_approve: false/push_main_on_approve: true/' \
		-e 's/^max_parallel: .*/max_parallel: 0/' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "auto-push, push main"
	for ((i = 1; i <= n; i++)); do
		git burl add "task $i" --affects "f$i.txt" >/dev/null
	done
	agent "work$secs" "sleep $secs; n=\$(expr \"\${BURL_TASK#TASK-}\" + 0); echo \"\$BURL_TASK\" >\"f\$n.txt\""
	agents_yaml "auto_approve: true
agents:
  - name: bot
    command: [\"$AGENTS/work$secs\"]
    max_parallel: 2
    timeout: 5m
    retries: 1"
	git -C .burl push -q origin burl
	for ((i = 1; i < k; i++)); do
		c=${names[i - 1]}
		git clone -q "$d/origin.git" "$d/$c" 2>/dev/null
		(cd "$d/$c" && git burl init >/dev/null && git burl trust --yes >/dev/null)
	done
}

# watch_clones DIR: git burl watch --once in every clone of DIR at once;
# prints the seconds from their start to the last one's exit. Each
# watch's --json summary is in DIR/<clone>.json, its stderr beside it.
watch_clones() {
	local d=$1 c t0 t1 pids=() p rc=0
	t0=$(date +%s.%N)
	for c in "$d"/[a-d]; do
		(cd "$c" && exec git burl watch --once --interval 200ms --json >"$c.json" 2>"$c.err") &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || rc=$?
	done
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }'
	return "$rc"
}

# all_landed DIR N: every one of the N tasks is DONE on DIR's origin with
# its work on main, none was rejected or blocked, every watch said ok.
all_landed() {
	local d=$1 n=$2 i c
	cd "$d/a" || return 1
	git fetch -q origin
	[ "$(git ls-tree -r --name-only origin/burl .workflow/DONE | grep -c 'TASK-')" = "$n" ]
	for ((i = 1; i <= n; i++)); do
		git cat-file -e "origin/main:f$i.txt"
	done
	! remote_events | grep -q '"action":"reject"'
	! remote_events | grep -q '"action":"block"'
	for c in "$d"/[a-d]; do
		jq -e '.ok and (.rejected | length == 0) and (.blocked | length == 0)' "$c.json" >/dev/null
	done
}

@test "three clones under watch --once land six tasks of a 12-second agent faster than one clone lands them, every task DONE once, none rejected" {
	setup_isolated_git
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
	local three one c
	speed_origin "$BATS_TEST_TMPDIR/three" 6 12 3
	three=$(watch_clones "$BATS_TEST_TMPDIR/three") || { for c in "$BATS_TEST_TMPDIR"/three/[a-c]; do tail -n 20 "$c.err"; done; false; }
	speed_origin "$BATS_TEST_TMPDIR/one" 6 12 1
	one=$(watch_clones "$BATS_TEST_TMPDIR/one") || { tail -n 20 "$BATS_TEST_TMPDIR/one/a.err"; false; }
	echo "# 3 clones: ${three}s; 1 clone: ${one}s" >&3
	all_landed "$BATS_TEST_TMPDIR/three" 6
	all_landed "$BATS_TEST_TMPDIR/one" 6
	# Every clone ran some of the work: it was shared, not done by one.
	for c in "$BATS_TEST_TMPDIR"/three/[a-c]; do
		jq -e '[.runs[] | select(.result == "submitted")] | length > 0' "$c.json" >/dev/null
	done
	awk -v a="$three" -v b="$one" 'BEGIN { exit !(a < b) }'
}
