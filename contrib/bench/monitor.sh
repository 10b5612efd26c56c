#!/usr/bin/env bash
# The live board's cost, reported not asserted (issue 12): with the board
# running in tmux over a workflow of BENCH_MONITOR_TASKS tasks,
#   1. idle CPU: the share of one core it uses over 30 s with nothing changing;
#   2. redraw: from the start of `git burl add` in another shell to the new
#      task on the screen (median of BENCH_MONITOR_ROUNDS);
#   3. RSS: the board process's resident and peak resident memory.
# Needs git-burl on PATH and tmux. Prints markdown rows.
set -euo pipefail
N=${BENCH_MONITOR_TASKS:-500}
ROUNDS=${BENCH_MONITOR_ROUNDS:-10}
IDLE=${BENCH_MONITOR_IDLE:-30}
command -v tmux >/dev/null || { echo "monitor bench: tmux is not installed" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-monitor-bench.XXXXXX")
SOCK="burl-monitor-bench-$$"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench

git init -q "$W/r"
cd "$W/r"
echo x >README.md
git add -A && git commit -q -m init
git burl init >/dev/null
sed -i 's/^max_parallel:.*/max_parallel: 0/' .burl/.workflow/config.yaml
git -C .burl commit -q -am config
for i in $(seq 1 "$N"); do git burl add "Task $i" --affects "f$i.txt" >/dev/null; done
for i in $(seq 1 10); do git burl claim "$(printf 'TASK-%03d' "$i")" >/dev/null 2>&1; done

tmux -L "$SOCK" new-session -d -x 160 -y 50 "git burl monitor"
has() { tmux -L "$SOCK" capture-pane -p -t 0 | grep -qF -- "$1"; }
for _ in $(seq 1 100); do has "READY" && break; sleep 0.1; done
# The pane's shell runs git, which runs git-burl, which execs the verb
# binary: measure that process, found among the pane's descendants.
monitor_pid() {
	local p=$1 c
	[ "$(cat "/proc/$p/comm")" = git-burl-monito ] && { echo "$p"; return 0; }
	# shellcheck disable=SC2013 # a list of pids, one word each
	for c in $(cat "/proc/$p/task/"*/children); do # pids, one word each
		monitor_pid "$c" && return 0
	done
	return 1
}
sleep 2
pid=$(monitor_pid "$(tmux -L "$SOCK" list-panes -F '#{pane_pid}')")
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
t0=$(ticks)
sleep "$IDLE"
t1=$(ticks)
idle=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s="$IDLE" 'BEGIN { printf "%.2f", (b - a) / hz / s * 100 }')

ms=()
for r in $(seq 1 "$ROUNDS"); do
	title="Bench round $r"
	start=$(date +%s%N)
	git burl add "$title" --affects "r$r.txt" >/dev/null
	until has "READY $((N - 10 + r))"; do sleep 0.01; done
	ms+=($((($(date +%s%N) - start) / 1000000)))
	sleep 0.5
done
median=$(printf '%s\n' "${ms[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
worst=$(printf '%s\n' "${ms[@]}" | sort -n | tail -n 1)
rss=$(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")
hwm=$(awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$pid/status")
tmux -L "$SOCK" send-keys -t 0 q

echo "| monitor, $N tasks: idle CPU over ${IDLE} s | ${idle}% of a core | < 1% |"
echo "| monitor: \`git burl add\` → task on screen, median / worst of $ROUNDS | ${median} ms / ${worst} ms | ≤ 1000 ms |"
echo "| monitor: RSS now / peak | ${rss} MiB / ${hwm} MiB | ≤ 40 MiB |"
