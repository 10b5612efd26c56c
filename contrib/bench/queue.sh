#!/usr/bin/env bash
# The merge queue and conflict prediction, reported not asserted (issue 11):
#   1. `approve --all` of BENCH_QUEUE_TASKS (16) QA tasks whose
#      build_command takes one second, against the same tasks approved one
#      by one, in two identical workflows; once with every task passing and
#      once with one task that breaks the build (bisection). The builds are
#      counted in a file outside the repository.
#   2. `git burl conflicts` over 10, 25 and 50 in-flight tasks (one pair
#      in five touching the same line), median of 3.
#   3. With queue_ci: forge against a real Gitea on loopback
#      (contrib/forge/gitea.sh; skipped with one line where it cannot be
#      built): approve --all of the N tasks, each candidate's checks posted
#      by a stand-in CI that takes one second per candidate, against the
#      same queue one task at a time (queue_batch: 1).
# Needs git-burl on PATH (and for 3 curl). Prints markdown rows.
set -euo pipefail
N=${BENCH_QUEUE_TASKS:-16}
GITEA_SH=$(cd "$(dirname "$0")/../forge" && pwd)/gitea.sh
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

# submit_tasks BREAK: N tasks in QA in the workflow here, each adding its
# own file; task BREAK (0: none) also adds src/break.
submit_tasks() {
	local i id wt
	for i in $(seq 1 "$N"); do
		git burl add "Task $i" --affects-glob 'src/**' >/dev/null 2>&1
		id=$(printf 'TASK-%03d' "$i")
		git burl claim "$id" >/dev/null 2>&1
		wt=$(git burl worktree "$id")
		mkdir -p "$wt/src"
		echo "task $i" >"$wt/src/t$i.txt"
		[ "$i" != "$1" ] || echo broken >"$wt/src/break"
		git -C "$wt" add -A && git -C "$wt" commit -q -m "task $i"
		git -C "$wt" burl submit "$id" >/dev/null
	done
}

# qa DIR BREAK: a workflow at DIR with N tasks in QA, each adding its own
# file; task BREAK (0: none) also adds src/break, which fails the build.
# The build (sleep 1, counted in DIR.builds) is set after the submits.
qa() {
	local d=$1 brk=$2
	git init -q "$d"
	cd "$d"
	echo x >README.md
	git add -A && git commit -q -m init
	git burl init >/dev/null
	config max_parallel 0
	config build_command '""'
	submit_tasks "$brk"
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

# The merge queue waiting on a forge's CI (queue_ci: forge, DESIGN §21).
if ! "$GITEA_SH" build >"$W/gitea-build.log" 2>&1; then
	echo "| approve --all with queue_ci: forge | skipped: Gitea could not be built here ($(tail -n 1 "$W/gitea-build.log")) | — | — | ≥ 3× | — |"
	exit 0
fi
trap '"$GITEA_SH" stop "$W/gitea" || true; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
gitea_up "$GITEA_SH" "$W"

# standin REPO: a CI for burl/queue/* of burl/REPO on the Gitea: each new
# candidate head is reported pending at once and success one second later,
# candidates side by side (a CI with free runners).
standin() {
	local repo=$1
	declare -A seen
	while :; do
		for sha in $(git ls-remote "${GITEA_URL}burl/$repo.git" 'refs/heads/burl/queue/*' 2>/dev/null | cut -f1); do
			[ -z "${seen[$sha]:-}" ] || continue
			seen[$sha]=1
			(
				api POST "/repos/burl/$repo/statuses/$sha" '{"state":"pending","context":"ci/test"}' >/dev/null
				sleep 1
				api POST "/repos/burl/$repo/statuses/$sha" '{"state":"success","context":"ci/test"}' >/dev/null
			) &
		done
		sleep 0.1
	done
}

# forge_queue TAG BATCH: N tasks in QA in a repository on the Gitea,
# landed by approve --all with queue_ci: forge, queue_batch BATCH and no
# build_command; prints "ms DONE candidates".
forge_queue() {
	local tag=$1 batch=$2 d="$W/forge-$1" t0 rc=0 ms_ pid
	gitea_repo "$d" "$tag"
	config max_parallel 0
	config build_command '""'
	config queue_batch "$batch"
	printf 'queue_ci: forge\nchecks: all\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -q -am "bench: queue_ci forge"
	git burl trust --yes >/dev/null
	submit_tasks 0
	standin "$tag" &
	pid=$!
	t0=$(date +%s%N)
	git burl approve --all >"$W/forge-$tag.log" 2>&1 || rc=$?
	ms_=$(ms "$t0")
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	[ "$rc" = 0 ] || {
		echo "queue bench: approve --all with queue_ci: forge failed: $(tail -n 5 "$W/forge-$tag.log")" >&2
		exit 1
	}
	echo "$ms_ $(find .burl/.workflow/DONE -name 'TASK-*.md' | wc -l)"
}
read -r fa fa_done <<<"$(forge_queue batched 4)"
read -r fo fo_done <<<"$(forge_queue single 1)"
r=$(echo "$fo / $fa" | bc -l)
met=no
(($(echo "$r >= 3" | bc))) && met=yes
printf '| approve --all, %d QA tasks, queue_ci: forge (stand-in CI: 1 s per candidate) | %.1f s, %d DONE | %.1f s (queue_batch: 1), %d DONE | %.2f× | ≥ 3× | %s |\n' \
	"$N" "$(echo "$fa / 1000" | bc -l)" "$fa_done" "$(echo "$fo / 1000" | bc -l)" "$fo_done" "$r" "$met"
