#!/usr/bin/env bash
# make bench (not make test): a soak of kill -9 under contention. 3 clones
# of one origin, 3 workers each, with workflow_auto_push and
# push_main_on_approve, claim → commit → submit → approve in a loop for
# SOAK_SECONDS (default 90), while a killer sends SIGKILL to a random burl
# command every SOAK_KILL_MS (default 700 ms). A worker whose command was
# killed runs doctor --repair --force and goes on. At the end every clone
# is repaired and synced, and the invariants are checked: every task in
# exactly one bucket, no task lost, no work commit lost, the remote's main
# and workflow branch linear, and a task's work on the remote's main if
# and only if it is DONE there. Prints a summary; exits 1 if one failed.
set -uo pipefail

SECONDS_TOTAL=${SOAK_SECONDS:-90}
KILL_MS=${SOAK_KILL_MS:-700}
TASKS=${SOAK_TASKS:-300}
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-soak.XXXXXX")
cleanup() { if [ -z "${SOAK_KEEP:-}" ]; then rm -rf "$W"; else echo "kept $W" >&2; fi; }
trap cleanup EXIT
command -v git-burl >/dev/null || { echo "soak: git-burl is not on PATH" >&2; exit 1; }

# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" soak
export BURL_ACTOR=soak

git init -q --bare "$W/origin.git"
git clone -q "$W/origin.git" "$W/a" 2>/dev/null
(
	cd "$W/a" || exit 1
	printf '# soak\n' >README.md
	git add -A && git commit -qm "initial commit" && git push -q origin main
	git burl init >/dev/null
	sed -i 's/^workflow_auto_push: false/workflow_auto_push: true/; s/^push_main_on_approve: false/push_main_on_approve: true/; s/^max_parallel: [0-9]*/max_parallel: 0/' .burl/.workflow/config.yaml
	git -C .burl commit -qam "soak: auto-push, push main on approve"
	for ((i = 1; i <= TASKS; i++)); do
		git burl add "soak $i" --affects "src/t$i.txt" >/dev/null
	done
	git -C .burl push -q origin burl
) || exit 1
for c in b c; do
	git clone -q "$W/origin.git" "$W/$c" 2>/dev/null
	(cd "$W/$c" && git burl init >/dev/null) || exit 1
done

# run CLONE CMD...: one burl command in the background, its pid recorded
# for the killer; returns its exit status.
run() {
	local clone=$1
	shift
	(cd "$W/$clone" && exec git-burl "$@") &
	local pid=$!
	echo "$pid" >"$W/pids/$pid"
	wait "$pid"
	local rc=$?
	rm -f "$W/pids/$pid"
	return $rc
}

worker() {
	local clone=$1 n=$2 end=$((SECONDS + SECONDS_TOTAL)) id wt rc
	while [ $SECONDS -lt $end ]; do
		run "$clone" claim --json >"$W/claim.$clone.$n" 2>/dev/null
		rc=$?
		if [ $rc -eq 137 ]; then echo kill >>"$W/events"; run "$clone" doctor --repair --force >/dev/null 2>&1; continue; fi
		[ $rc -eq 0 ] || { sleep 0.2; continue; }
		id=$(jq -r '.task.id' "$W/claim.$clone.$n")
		wt=$(jq -r '.worktree' "$W/claim.$clone.$n")
		[ -d "$wt" ] || wt="$W/$clone/$wt"
		msg="work on $id by $clone.$n at $SECONDS"
		if (cd "$wt" && mkdir -p src && echo "$msg" >"src/t$((10#${id#TASK-})).txt" && git add -A && git commit -qm "$msg") 2>/dev/null; then
			echo "$clone $msg" >>"$W/work"
		fi
		for verb in submit approve; do
			run "$clone" "$verb" "$id" >/dev/null 2>&1
			rc=$?
			if [ $rc -eq 137 ]; then
				echo kill >>"$W/events"
				run "$clone" doctor --repair --force >/dev/null 2>&1
				run "$clone" "$verb" "$id" >/dev/null 2>&1
			fi
		done
	done
}

killer() {
	local end=$((SECONDS + SECONDS_TOTAL)) victims
	while [ $SECONDS -lt $end ]; do
		sleep "$(awk -v ms="$KILL_MS" 'BEGIN { srand(); printf "%.3f", ms * (0.5 + rand()) / 1000 }')"
		mapfile -t victims < <(ls "$W/pids" 2>/dev/null)
		[ ${#victims[@]} -gt 0 ] || continue
		kill -9 "${victims[RANDOM % ${#victims[@]}]}" 2>/dev/null && echo sent >>"$W/events"
	done
}

mkdir -p "$W/pids"
: >"$W/events"
: >"$W/work"
pids=()
for c in a b c; do
	for n in 1 2 3; do
		worker "$c" "$n" &
		pids+=($!)
	done
done
killer &
pids+=($!)
for p in "${pids[@]}"; do wait "$p"; done

# Settle: repair and sync every clone, twice (a sync can bring another
# clone's leftovers).
for _ in 1 2; do
	for c in a b c; do
		(cd "$W/$c" && git-burl sync >/dev/null 2>&1; git-burl doctor --repair --force >/dev/null 2>&1) || true
	done
done

problems=0
bad() { echo "FAIL: $*"; problems=$((problems + 1)); }
for c in a b c; do
	(cd "$W/$c" && git-burl doctor >/dev/null 2>&1) || bad "clone $c: doctor is not healthy after repair: $(cd "$W/$c" && git-burl doctor 2>&1 | grep -v "is claimed in another clone" | head -8)"
done
o=$W/origin.git
git --git-dir="$o" ls-tree -r --name-only burl -- .workflow | awk -F/ '$NF ~ /^TASK-/ { split($NF, p, "-"); print p[1] "-" p[2] }' | sort >"$W/ids"
[ "$(sort -u "$W/ids" | wc -l)" -eq "$TASKS" ] || bad "tasks lost on the remote's workflow branch: $((TASKS - $(sort -u "$W/ids" | wc -l)))"
[ -z "$(uniq -d "$W/ids")" ] || bad "tasks in more than one bucket: $(uniq -d "$W/ids" | tr '\n' ' ')"
[ -z "$(git --git-dir="$o" rev-list --merges burl)" ] || bad "the remote's workflow branch has merge commits"
[ -z "$(git --git-dir="$o" rev-list --merges main)" ] || bad "the remote's main has merge commits"
lost=0
while read -r c msg; do
	git -C "$W/$c" log --all --format=%s | grep -xF "$msg" >/dev/null || git --git-dir="$o" log --all --format=%s | grep -xF "$msg" >/dev/null || lost=$((lost + 1))
done <"$W/work"
[ "$lost" -eq 0 ] || bad "$lost work commit(s) lost"
git --git-dir="$o" ls-tree -r --name-only burl -- .workflow/DONE | awk -F/ '$NF ~ /^TASK-/ { split($NF, p, "-"); print p[1] "-" p[2] }' | sort -u >"$W/done"
git --git-dir="$o" log main --format=%s | sed -n 's/^work on \(TASK-[0-9]*\) .*/\1/p' | sort -u >"$W/in_main"
done_remote=$(wc -l <"$W/done")
in_main=$(wc -l <"$W/in_main")
missing=$(comm -23 "$W/done" "$W/in_main" | tr '\n' ' ')
[ -z "$missing" ] || bad "DONE on the remote without their work in its main: $missing"
# And the other way (DESIGN §15: after settling, work on main implies
# DONE): where such a task is, in each clone, says which path left it.
undone=$(comm -13 "$W/done" "$W/in_main" | tr '\n' ' ')
if [ -n "$undone" ]; then
	bad "work in the remote's main without DONE on the remote: $undone"
	for id in $undone; do
		for c in a b c; do
			echo "  $id in clone $c: $(cd "$W/$c" && git-burl show "$id" --json 2>/dev/null | jq -r '.task.bucket') — last events: $(cd "$W/$c" && git-burl log --task "$id" --json 2>/dev/null | jq -r '[.events[-3:][] | .action] | join(", ")')"
		done
	done
fi
echo "soak: ${SECONDS_TOTAL}s, 3 clones × 3 workers, auto-push + push_main_on_approve"
echo "soak: SIGKILLs sent $(grep -c sent "$W/events"), burl commands killed $(grep -c kill "$W/events"); work commits $(wc -l <"$W/work"), DONE on the remote $done_remote, tasks with work in the remote's main $in_main; problems $problems"
[ "$problems" -eq 0 ]
