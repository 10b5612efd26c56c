#!/usr/bin/env bash
# The merge queue and conflict prediction, reported not asserted (issue 11):
#   1. `approve --all` of BENCH_QUEUE_TASKS (16) QA tasks whose
#      build_command takes one second, against the same tasks approved one
#      by one, in two identical workflows; once with every task passing and
#      once with one task that breaks the build (bisection). The builds are
#      counted in a file outside the repository.
#   2. `git burl conflicts` over 10, 25 and 50 in-flight tasks (one pair
#      in five touching the same line), median of 3.
# Needs git-burl on PATH. Prints markdown rows.
set -euo pipefail
N=${BENCH_QUEUE_TASKS:-16}
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-queue-bench.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench

ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

# config KEY VALUE: set one workflow setting and commit it.
config() {
	sed -i "s|^$1:.*|$1: $2|" .burl/.workflow/config.yaml
	git -C .burl diff --quiet || git -C .burl commit -q -am "bench: $1"
	git burl trust --yes >/dev/null
}

# qa DIR BREAK: a workflow at DIR with N tasks in QA, each adding its own
# file; task BREAK (0: none) also adds src/break, which fails the build.
# The build (sleep 1, counted in DIR.builds) is set after the submits.
qa() {
	local d=$1 brk=$2 i id wt
	git init -q "$d"
	cd "$d"
	echo x >README.md
	git add -A && git commit -q -m init
	git burl init >/dev/null
	config max_parallel 0
	config build_command '""'
	for i in $(seq 1 "$N"); do
		git burl add "Task $i" --affects-glob 'src/**' >/dev/null 2>&1
		id=$(printf 'TASK-%03d' "$i")
		git burl claim "$id" >/dev/null 2>&1
		wt=$(git burl worktree "$id")
		mkdir -p "$wt/src"
		echo "task $i" >"$wt/src/t$i.txt"
		[ "$i" != "$brk" ] || echo broken >"$wt/src/break"
		git -C "$wt" add -A && git -C "$wt" commit -q -m "task $i"
		git -C "$wt" burl submit "$id" >/dev/null
	done
	: >"$d.builds"
	config build_command "'echo b >>$d.builds; sleep 1; test ! -e src/break'"
	config build_timeout 60s
}

# queue TAG BREAK: the same QA stack landed by approve --all in one
# workflow and by N single approves in another; prints a row.
queue() {
	local tag=$1 brk=$2 t0 all one i rc
	qa "$W/all-$tag" "$brk"
	t0=$(date +%s%N)
	rc=0
	git burl approve --all >/dev/null 2>&1 || rc=$?
	all=$(ms "$t0")
	local all_builds all_done
	all_builds=$(wc -l <"$W/all-$tag.builds")
	all_done=$(find .burl/.workflow/DONE -name 'TASK-*.md' | wc -l)
	qa "$W/one-$tag" "$brk"
	t0=$(date +%s%N)
	for i in $(seq 1 "$N"); do git burl approve "$(printf 'TASK-%03d' "$i")" >/dev/null 2>&1 || true; done
	one=$(ms "$t0")
	local one_builds
	one_builds=$(wc -l <"$W/one-$tag.builds")
	local r target met
	r=$(echo "$one / $all" | bc -l)
	target=3
	[ "$brk" = 0 ] || target=2
	met=no
	(($(echo "$r >= $target" | bc))) && met=yes
	printf '| approve --all, %d QA tasks, 1 s build%s | %.1f s, %d builds, %d DONE (exit %d) | %.1f s, %d builds | %.2f× | ≥ %d× | %s |\n' \
		"$N" "$([ "$brk" = 0 ] && echo ", all pass" || echo ", task $brk breaks it")" \
		"$(echo "$all / 1000" | bc -l)" "$all_builds" "$all_done" "$rc" \
		"$(echo "$one / 1000" | bc -l)" "$one_builds" "$r" "$target" "$met"
}

# inflight DIR K: K DOING tasks with one commit each; task i and i+1 edit
# the same line of shared.txt for every i ≡ 1 (mod 5), the others a file
# of their own.
inflight() {
	local d=$1 k=$2 i id wt
	git init -q "$d"
	cd "$d"
	seq 1 100 >shared.txt
	git add -A && git commit -q -m init
	git burl init >/dev/null
	config max_parallel 0
	config conflict_policy ignore
	for i in $(seq 1 "$k"); do
		git burl add "Task $i" --affects-glob '**' >/dev/null 2>&1
		id=$(printf 'TASK-%03d' "$i")
		git burl claim "$id" >/dev/null 2>&1
		wt=$(git burl worktree "$id")
		if ((i % 5 == 1 || i % 5 == 2)); then
			sed -i "$((i / 5 + 1))s/.*/task $i/" "$wt/shared.txt"
		else
			echo "task $i" >"$wt/own$i.txt"
		fi
		git -C "$wt" add -A && git -C "$wt" commit -q -m "task $i"
	done
}

printf '| measurement | burl | one at a time | ratio | target | met |\n| --- | --- | --- | --- | --- | --- |\n'
queue pass 0
queue break $((N / 2))
for k in 10 25 50; do
	inflight "$W/c$k" "$k"
	ts=()
	for _ in 1 2 3; do
		t0=$(date +%s%N)
		git burl conflicts >/dev/null 2>&1 || true
		ts+=("$(ms "$t0")")
	done
	med=$(printf '%s\n' "${ts[@]}" | sort -n | sed -n 2p)
	pairs=$(git burl conflicts --json 2>/dev/null | jq '.conflicts | length' || true)
	printf '| conflicts, %d in-flight tasks (%d merges, %s predicted) | %d ms | — | — | %s | %s |\n' \
		"$k" $((k + k * (k - 1) / 2)) "$pairs" "$med" "$([ "$k" = 50 ] && echo "≤ 2000 ms" || echo "—")" \
		"$([ "$k" = 50 ] && { ((med <= 2000)) && echo yes || echo no; } || echo "—")"
done
