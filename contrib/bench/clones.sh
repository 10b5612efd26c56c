#!/usr/bin/env bash
# Several clones under watch against one origin, reported not asserted
# (DESIGN §25, issue 40.11): BENCH_CLONES_TASKS (40) tasks of a
# BENCH_CLONES_AGENT_SECS (2) second agent, `git burl watch --once` in three
# clones at once against the same tasks in one clone, BENCH_CLONES_RUNS (3)
# times each, interleaved. Every clone has auto_approve,
# workflow_auto_push and push_main_on_approve; task branches are not pushed
# on submit (the default), so only the clone that did a task can land it.
# Per run: the wall time, the tasks DONE on origin, and the QA rejections
# (a rejection there is a clone charging another's agent for its own
# missing branch). Needs git-burl on PATH. Prints markdown rows.
set -euo pipefail
N=${BENCH_CLONES_TASKS:-40}
RUNS=${BENCH_CLONES_RUNS:-3}
SECS=${BENCH_CLONES_AGENT_SECS:-2}
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-clones-bench.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench

cat >"$W/agent.sh" <<SH
#!/bin/sh
sleep $SECS
echo "\$BURL_TASK" >"f-\$BURL_TASK.txt"
SH
chmod +x "$W/agent.sh"

now() { date +%s.%N; }

# origin DIR: a bare origin in DIR/origin.git with N tasks and agents.yaml,
# set up from DIR/a, which stays as the first clone.
origin() {
	local d=$1 i
	git init -q --bare "$d/origin.git"
	git clone -q "$d/origin.git" "$d/a" 2>/dev/null
	(
		cd "$d/a"
		echo x >README.md
		git add -A && git commit -q -m init && git push -q origin main
		git burl init >/dev/null
		sed -i -e 's/^max_parallel:.*/max_parallel: 0/' -e 's/^build_command:.*/build_command: ""/' \
			-e 's/^workflow_auto_push:.*/workflow_auto_push: true/' -e 's/^push_main_on_approve:.*/push_main_on_approve: true/' \
			.burl/.workflow/config.yaml
		git -C .burl commit -q -am config
		for i in $(seq 1 "$N"); do git burl add "Task $i" --affects "f-$(printf "TASK-%03d" "$i").txt" >/dev/null; done
		printf 'auto_approve: true\nagents:\n  - name: a\n    command: ["%s"]\n    max_parallel: 2\n    timeout: 1m\n' "$W/agent.sh" >.burl/.workflow/agents.yaml
		git -C .burl add .workflow/agents.yaml && git -C .burl commit -q -m agents
		git -C .burl push -q origin burl
		git burl trust --yes >/dev/null
	)
}

# clone DIR NAME: another clone of DIR's origin, burl attached and trusted.
clone() {
	git clone -q "$1/origin.git" "$1/$2" 2>/dev/null
	(cd "$1/$2" && git burl init >/dev/null && git burl trust --yes >/dev/null)
}

# run K: watch --once in clones a..K of a fresh origin at once; prints
# "seconds done rejections".
run() {
	local d c k t0 pids=() p names=(b c d e f g h)
	d=$(mktemp -d "$W/run.XXXXXX")
	origin "$d"
	for ((k = 1; k < $1; k++)); do
		clone "$d" "${names[k - 1]}"
	done
	t0=$(now)
	for c in "$d"/[a-h]; do
		(cd "$c" && exec git burl watch --once --interval 200ms >/dev/null 2>"$c.err") &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || true; done
	local s landed rejected
	s=$(echo "$(now) - $t0" | bc -l)
	git -C "$d/a" fetch -q origin
	landed=$(git -C "$d/a" ls-tree -r --name-only origin/burl .workflow/DONE | grep -c 'TASK-' || true)
	rejected=$(git -C "$d/a" ls-tree -r --name-only origin/burl .workflow/events |
		while read -r f; do git -C "$d/a" show "origin/burl:$f"; done | grep -c '"action":"reject"' || true)
	echo "$s $landed $rejected"
	rm -rf "$d"
}

one=() three=() ratios=() worst=$N rejections=0
load0=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
for i in $(seq 1 "$RUNS"); do
	read -r s d r < <(run 3)
	three+=("$s")
	[ "$d" -ge "$worst" ] || worst=$d
	rejections=$((rejections + r))
	printf '| run %d: 3 clones | %.1f s | %d/%d DONE | %d rejection(s) |\n' "$i" "$s" "$d" "$N" "$r"
	read -r s d r < <(run 1)
	one+=("$s")
	printf '| run %d: 1 clone | %.1f s | %d/%d DONE | %d rejection(s) |\n' "$i" "$s" "$d" "$N" "$r"
	ratios+=("$(echo "${three[i - 1]} / $s" | bc -l)")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
m3=$(median "${three[@]}")
m1=$(median "${one[@]}")
printf '| watch --once, 3 clones against one origin, %d tasks of a %d s agent (median of %d) | %.1f s | 1 clone: %.1f s | %.2f× (median of the runs'"'"' ratios %.2f×, worst %.2f×) | fewest DONE in a 3-clone run: %d/%d; rejections: %d; load average %s → %s |\n' \
	"$N" "$SECS" "$RUNS" "$m3" "$m1" "$(echo "$m3 / $m1" | bc -l)" "$(median "${ratios[@]}")" "$(printf '%s\n' "${ratios[@]}" | sort -n | tail -n 1)" \
	"$worst" "$N" "$rejections" "$load0" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")"
