#!/usr/bin/env bash
# watch's throughput against an earlier burl (issue 43: ≥ 1.3× e9f7f63):
# 8 parallel trivial agents over BENCH_AB_TASKS tasks, the earlier commit
# (BENCH_AB_BASE) built from its own source in a temporary worktree and
# this build (git-burl on PATH) run by turns, BENCH_AB_ROUNDS rounds each,
# on the same machine, so a load that drifts weighs on both alike. Prints
# a markdown row with the load average at its end.
set -euo pipefail
BASE=${BENCH_AB_BASE:-e9f7f63}
N=${BENCH_AB_TASKS:-200}
ROUNDS=${BENCH_AB_ROUNDS:-2}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
command -v git-burl >/dev/null || { echo "watchab: git-burl is not on PATH (make bench)" >&2; exit 2; }
NEW=$(dirname "$(command -v git-burl)")
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-watchab.XXXXXX")
cleanup() {
	git -C "$SRC" worktree remove --force "$W/src" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
git -C "$SRC" worktree add -q --detach "$W/src" "$BASE"
(cd "$W/src" && make -s build >/dev/null && PREFIX="$W/old" BURL_QUIET_INSTALL=1 ./install.sh >/dev/null)
OLD=$W/old/bin
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench
cat >"$W/agent.sh" <<'SH'
#!/bin/sh
echo "$BURL_TASK" >"f-$BURL_TASK.txt"
SH
chmod +x "$W/agent.sh"

# run BIN NAME: seconds for watch --once with burl from BIN to land N tasks.
run() {
	local bin=$1 d=$W/$2
	(
		export PATH="$bin:$PATH"
		git init -q "$d"
		cd "$d"
		echo x >README.md
		git add -A && git commit -q -m init
		git burl init >/dev/null
		sed -i 's/^max_parallel:.*/max_parallel: 0/; s/^build_command:.*/build_command: ""/' .burl/.workflow/config.yaml
		git -C .burl commit -q -am config
		for i in $(seq 1 "$N"); do git burl add "Task $i" --affects "f-$(printf "TASK-%03d" "$i").txt" >/dev/null; done
		printf 'auto_approve: true\nagents:\n  - name: a\n    command: ["%s"]\n    max_parallel: 8\n    timeout: 1m\n' "$W/agent.sh" >.burl/.workflow/agents.yaml
		git -C .burl add .workflow/agents.yaml && git -C .burl commit -q -m agents
		git burl trust --yes >/dev/null
		t0=$(date +%s.%N)
		git burl watch --once --interval 50ms >/dev/null 2>&1
		t1=$(date +%s.%N)
		landed=$(find .burl/.workflow/DONE -name 'TASK-*' | wc -l)
		[ "$landed" = "$N" ] || { echo "watchab: $2 landed $landed of $N tasks" >&2; exit 1; }
		echo "$t1 - $t0" | bc -l
	)
}
old=0 new=0
# The load average at the start and at the end: the machine is shared, and
# a number measured under a load that moved a lot says less.
load0=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
# The order turns every round (BENCH_AB_FIRST: which goes first in the
# first): a load that falls or rises over the runs favours neither.
first=${BENCH_AB_FIRST:-old}
for r in $(seq 1 "$ROUNDS"); do
	if [ "$first" = old ]; then
		old=$(echo "$old + $(run "$OLD" "old$r")" | bc -l)
		new=$(echo "$new + $(run "$NEW" "new$r")" | bc -l)
		first=new
	else
		new=$(echo "$new + $(run "$NEW" "new$r")" | bc -l)
		old=$(echo "$old + $(run "$OLD" "old$r")" | bc -l)
		first=old
	fi
done
load="$load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime) at the end"
printf '| watch --once, 8 trivial agents, %d tasks, %d rounds by turns | %.0f tasks/min | %s: %.0f tasks/min | %.2f× | ≥ 1.3× | load %s |\n' \
	"$N" "$ROUNDS" "$(echo "$N * $ROUNDS * 60 / $new" | bc -l)" "$BASE" "$(echo "$N * $ROUNDS * 60 / $old" | bc -l)" "$(echo "$old / $new" | bc -l)" "$load"
