#!/usr/bin/env bash
# Stacked tasks (DESIGN §26, issue 41), reported not asserted (DESIGN §8):
#   1. a chain of 3 dependent tasks under watch --once, each agent taking
#      BENCH_STACK_AGENT_S seconds (default 5) and each landing gated by a
#      build of each of BENCH_STACK_BUILD_S seconds (default "5 10", the CI
#      a parent waits for), with stack: true against without: wall time
#      until all three are DONE (goal ≤ 0.6×, which no scheduler reaches
#      with a build shorter than 1.5× the agent's time: see the floors the
#      row prints);
#   2. the restack of a child after its parent's squash landing (approve
#      of the parent with a stacked child, minus approve without one)
#      against a plain git rebase --onto of the same commits (goal ≤ 2×).
# Needs git-burl on PATH. Prints markdown rows.
set -euo pipefail
AGENT_S=${BENCH_STACK_AGENT_S:-5}
BUILDS=${BENCH_STACK_BUILD_S:-5 10}
RUNS=${BENCH_STACK_RUNS:-10}
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-stack-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench
now() { date +%s.%N; }

cat >"$W/agent.sh" <<SH
#!/bin/sh
sleep $AGENT_S
echo "\$BURL_TASK" >"f-\$BURL_TASK.txt"
SH
chmod +x "$W/agent.sh"

# chain DIR STACK: three tasks, each depending on the one before, under
# one agent that may run three at once; STACK is true or false.
chain() {
	git init -q "$1"
	(
		cd "$1"
		echo x >README.md
		git add -A && git commit -q -m init
		git burl init >/dev/null
		sed -i "s/^max_parallel:.*/max_parallel: 0/; s/^build_command:.*/build_command: sleep $BUILD_S/; s/^merge_strategy:.*/merge_strategy: squash/" .burl/.workflow/config.yaml
		printf 'stack: %s\n' "$2" >>.burl/.workflow/config.yaml
		git -C .burl commit -q -am config
		git burl add "Task 1" --affects f-TASK-001.txt >/dev/null
		git burl add "Task 2" --affects f-TASK-002.txt --depends-on TASK-001 >/dev/null
		git burl add "Task 3" --affects f-TASK-003.txt --depends-on TASK-002 >/dev/null
		printf 'auto_approve: true\nsandbox: none\nagents:\n  - name: a\n    command: ["%s"]\n    max_parallel: 3\n    timeout: 1m\n' "$W/agent.sh" >.burl/.workflow/agents.yaml
		git -C .burl add .workflow/agents.yaml && git -C .burl commit -q -m agents
		git burl trust --yes >/dev/null
	)
}

# chain_wall STACK: seconds until the three tasks are DONE.
chain_wall() {
	local d
	d="$W/chain-$1-$RANDOM"
	chain "$d" "$1"
	cd "$d"
	local t0
	t0=$(now)
	git burl watch --once --interval 100ms >/dev/null 2>&1 || true
	local t1
	t1=$(now)
	[ "$(find .burl/.workflow/DONE -name 'TASK-*.md' | wc -l)" = 3 ] || { echo "bench: the chain did not reach DONE (stack: $1)" >&2; exit 1; }
	echo "$t1 - $t0" | bc -l
}
for BUILD_S in $BUILDS; do
	off=$(chain_wall false)
	on=$(chain_wall true)
	# The floor: stacked, the last task is submitted no earlier than 3 agent
	# runs and lands after its own build (3A + B); one after the other, each
	# task's run and build in turn (3(A + B)).
	floor_on=$(echo "3 * $AGENT_S + $BUILD_S" | bc -l)
	floor_off=$(echo "3 * ($AGENT_S + $BUILD_S)" | bc -l)
	printf '| a chain of 3 dependent tasks under watch --once, agents %s s, build %s s: until all DONE | stack: true %.1f s (floor %.0f s) | without %.1f s (floor %.0f s) | %.2f× (floor %.2f×) | ≤ 0.6× |\n' \
		"$AGENT_S" "$BUILD_S" "$on" "$floor_on" "$off" "$floor_off" "$(echo "$on / $off" | bc -l)" "$(echo "$floor_on / $floor_off" | bc -l)"
done

# restack_repo DIR STACKED: a parent of 5 commits in QA and, when STACKED,
# a child of 5 commits stacked on it in QA; main moved on by one commit.
restack_repo() {
	git init -q "$1"
	(
		cd "$1"
		echo x >README.md
		git add -A && git commit -q -m init
		git burl init >/dev/null
		sed -i 's/^max_parallel:.*/max_parallel: 0/; s/^build_command:.*/build_command: ""/; s/^merge_strategy:.*/merge_strategy: squash/' .burl/.workflow/config.yaml
		printf 'stack: true\n' >>.burl/.workflow/config.yaml
		git -C .burl commit -q -am config
		git burl add "Parent" --affects-glob 'p/**' >/dev/null
		git burl add "Child" --affects-glob 'c/**' --depends-on TASK-001 >/dev/null
		wt=$(git burl claim TASK-001 | tail -n 1)
		(cd "$wt" && mkdir p && for i in 1 2 3 4 5; do echo "$i" >"p/$i.txt" && git add -A && git commit -q -m "p$i"; done)
		git burl submit TASK-001 >/dev/null
		if [ "$2" = yes ]; then
			wt=$(git burl claim TASK-002 | tail -n 1)
			(cd "$wt" && mkdir c && for i in 1 2 3 4 5; do echo "$i" >"c/$i.txt" && git add -A && git commit -q -m "c$i"; done)
			git burl submit TASK-002 >/dev/null
		fi
		echo y >other.txt && git add other.txt && git commit -q -m "main moves on"
	)
}

# median: the median of the numbers on stdin. approve_ms STACKED and
# rebase_ms: the median of RUNS timings, each in a repository of its own.
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
approve_ms() {
	local i d t0
	for i in $(seq 1 "$RUNS"); do
		d="$W/approve-$1-$i"
		restack_repo "$d" "$1"
		cd "$d"
		t0=$(now)
		git burl approve TASK-001 >/dev/null 2>&1
		echo "($(now) - $t0) * 1000" | bc -l
	done | median
}
rebase_ms() {
	local i d t0 wt head base
	for i in $(seq 1 "$RUNS"); do
		d="$W/rebase-$i"
		restack_repo "$d" yes
		cd "$d"
		wt=$(git burl worktree TASK-002)
		head=$(git -C "$wt" rev-parse HEAD)
		base=$(git -C "$wt" rev-parse HEAD~5)
		git burl approve TASK-001 >/dev/null 2>&1
		# The same replay by hand: the child's 5 commits, from its old
		# base (the parent's submitted head) onto the new main.
		cd "$wt"
		git reset -q --hard "$head"
		t0=$(now)
		git rebase -q --onto main "$base" >/dev/null 2>&1
		echo "($(now) - $t0) * 1000" | bc -l
	done | median
}
with=$(approve_ms yes)
without=$(approve_ms no)
restack=$(echo "$with - $without" | bc -l)
plain=$(rebase_ms)
printf '| restack of a 5-commit child after its parent'"'"'s squash (approve with a stacked child − without, median of %d) | %.0f ms | git rebase --onto of the same commits %.0f ms | %.2f× | ≤ 2× |\n' \
	"$RUNS" "$restack" "$plain" "$(echo "$restack / $plain" | bc -l)"
