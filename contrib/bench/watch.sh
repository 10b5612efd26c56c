#!/usr/bin/env bash
# Watch's cost, reported not asserted (DESIGN §8, issue 10):
#   1. overhead per task: watch --once with a trivial agent, against the
#      same work done by hand (claim, agent, commit, submit, approve), with
#      the sandbox on (bubblewrap, where it works) and off; and what the
#      sandbox's own work costs per run (its git dir made, the run's commit
#      taken in through the quarantine, what it left committed: the Go
#      benchmark BenchmarkPrepareReceive, when go and the source are here);
#   2. throughput: 8 parallel trivial agents over BENCH_WATCH_TASKS tasks;
#   3. peak RSS of the watch process over BENCH_WATCH_RSS_TASKS tasks.
# Needs git-burl on PATH and GNU time. Prints markdown rows.
set -euo pipefail
N1=${BENCH_WATCH_N:-30}
N2=${BENCH_WATCH_TASKS:-200}
N3=${BENCH_WATCH_RSS_TASKS:-1000}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-watch-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench

cat >"$W/agent.sh" <<'SH'
#!/bin/sh
echo "$BURL_TASK" >"f-$BURL_TASK.txt"
SH
chmod +x "$W/agent.sh"

# repo DIR N PARALLEL [SANDBOX]: a repository with N tasks and agents.yaml.
repo() {
	git init -q "$1"
	(
		cd "$1"
		echo x >README.md
		git add -A && git commit -q -m init
		git burl init >/dev/null
		sed -i 's/^max_parallel:.*/max_parallel: 0/; s/^build_command:.*/build_command: ""/' .burl/.workflow/config.yaml
		git -C .burl commit -q -am config
		for i in $(seq 1 "$2"); do git burl add "Task $i" --affects "f-$(printf "TASK-%03d" "$i").txt" >/dev/null; done
		{
			[ -z "${4:-}" ] || printf 'sandbox: %s\n' "$4"
			printf 'auto_approve: true\nagents:\n  - name: a\n    command: ["%s"]\n    max_parallel: %s\n    timeout: 1m\n' "$W/agent.sh" "$3"
		} >.burl/.workflow/agents.yaml
		git -C .burl add .workflow/agents.yaml && git -C .burl commit -q -m agents
		git burl trust --yes >/dev/null
	)
}
now() { date +%s.%N; }

# by_hand NAME: ms per task of the same work by hand over N1 tasks.
by_hand() {
	repo "$W/$1" "$N1" 1
	cd "$W/$1"
	local t0 i id wt
	t0=$(now)
	for i in $(seq 1 "$N1"); do
		id=$(printf 'TASK-%03d' "$i")
		wt=$(git burl claim "$id" | tail -n 1)
		(cd "$wt" && BURL_TASK=$id "$W/agent.sh" && git add -A && git commit -q -m "Task $i")
		git burl submit "$id" >/dev/null
		git burl approve "$id" >/dev/null
	done
	echo "($(now) - $t0) * 1000 / $N1" | bc -l
}

# watch_per_task NAME SANDBOX: ms per task of watch --once over N1 tasks.
watch_per_task() {
	repo "$W/$1" "$N1" 1 "$2"
	cd "$W/$1"
	local t0
	t0=$(now)
	git burl watch --once --interval 50ms 2>"$W/$1.err" >/dev/null
	local t1 landed
	t1=$(now)
	# A run that failed fast would pass for a fast one: every task must land.
	landed=$(git burl status --json | jq .counts.DONE)
	if [ "$landed" != "$N1" ]; then
		echo "watch.sh: $1 landed $landed of $N1 tasks; watch said:" >&2
		tail -n 20 "$W/$1.err" >&2
		exit 1
	fi
	echo "($t1 - $t0) * 1000 / $N1" | bc -l
}
# By hand before and after the watch runs, the mean its floor: on a shared
# machine the load drifts between the measurements.
hand1=$(by_hand hand1)
bw=""
if bwrap --dev-bind / / --unshare-user --unshare-pid --proc /proc true 2>/dev/null; then
	bw=$(watch_per_task watch-bwrap bwrap)
fi
none=$(watch_per_task watch-none none)
hand2=$(by_hand hand2)
hand=$(echo "($hand1 + $hand2) / 2" | bc -l)
if [ -n "$bw" ]; then
	printf '| watch --once, 1 agent, sandbox on (bwrap), per task (%d tasks) | %.0f ms | by hand claim+commit+submit+approve %.0f ms (%.0f before, %.0f after) | %.2f× | ≤ 1.3× |\n' "$N1" "$bw" "$hand" "$hand1" "$hand2" "$(echo "$bw / $hand" | bc -l)"
else
	printf '| watch --once, 1 agent, sandbox on (bwrap), per task | bubblewrap does not work here | — | — | ≤ 1.3× |\n'
fi
printf '| watch --once, 1 agent, sandbox: none, per task (%d tasks) | %.0f ms | by hand %.0f ms | %.2f× | — |\n' "$N1" "$none" "$hand" "$(echo "$none / $hand" | bc -l)"
if command -v go >/dev/null && [ -f "$SRC/go.mod" ]; then
	ns=$(cd "$SRC" && go test -run '^$' -bench '^BenchmarkPrepareReceive$' -benchtime "${BENCH_SANDBOX_N:-30}x" ./pkg/sandbox | awk '$1 ~ /^BenchmarkPrepareReceive/ { print $3 }')
	printf '| the sandbox'"'"'s own work per run: its git dir made, one commit taken in through the quarantine, a left file committed | %.1f ms | — | — | — |\n' "$(echo "$ns / 1000000" | bc -l)"
fi

repo "$W/watch8" "$N2" 8
cd "$W/watch8"
t0=$(now)
git burl watch --once --interval 50ms 2>/dev/null >/dev/null
s=$(echo "$(now) - $t0" | bc -l)
printf '| watch --once, 8 parallel trivial agents, %d tasks | %.0f tasks/min | %.1f s total | — | — |\n' "$N2" "$(echo "$N2 * 60 / $s" | bc -l)" "$s"

repo "$W/rss" "$N3" 4
cd "$W/rss"
/usr/bin/time -f '%M' -o "$W/rss.kb" git-burl watch --once --interval 50ms 2>/dev/null >/dev/null
printf '| watch peak RSS after %d tasks | %.1f MiB | — | — | ≤ 30 MiB |\n' "$N3" "$(echo "$(cat "$W/rss.kb") / 1024" | bc -l)"
