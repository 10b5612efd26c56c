#!/usr/bin/env bash
# Settling pull requests against a real Gitea on loopback (DESIGN §17, the
# landing: pr issue's "Done when"): a settle round (`git burl sync --settle
# --json`) in a repository with BENCH_FORGE_PRS (50) open pull requests
# against the same round with 1, both on one Gitea started by
# contrib/forge/gitea.sh. Reports the requests of a round from the round's
# own count (.settle.requests): quiet (expected 1, the list), after k pull
# requests got a comment (expected 1 + k), and quiet again; and the time of
# a quiet round, 50 against 1 (target < 2×). Then the checks (DESIGN
# §21): main requires the status ci/test, every head's is pending, and a
# round reads each head's checks (Gitea lists no checks with the pull
# requests: one request per head, 8 at once, and one for main's
# protection), timed 50 against 1; once they passed, a quiet round asks
# nothing but the list again. Skipped with one line when
# Gitea cannot be built here. Needs git-burl on PATH, hyperfine, jq, curl.
# Prints markdown rows. BENCH_RUNS (10) timed runs after one warm-up.
set -euo pipefail
N=${BENCH_FORGE_PRS:-50}
K=${BENCH_FORGE_CHANGED:-5}
RUNS=${BENCH_RUNS:-10}
here=$(cd "$(dirname "$0")" && pwd)
GITEA_SH=$here/../forge/gitea.sh
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-forge-bench.XXXXXX")
cleanup() {
	"$GITEA_SH" stop "$W/gitea" || true
	if [ -z "${KEEP:-}" ]; then rm -rf "$W"; else echo "kept $W" >&2; fi
}
trap cleanup EXIT
die() {
	echo "forge bench: $*" >&2
	exit 1
}
for c in git-burl hyperfine jq curl bc; do
	command -v "$c" >/dev/null || die "$c is not on PATH"
done

if ! "$GITEA_SH" build >"$W/gitea-build.log" 2>&1; then
	echo "forge bench: skipped: Gitea could not be built on this machine (contrib/forge/gitea.sh build; $(tail -n 1 "$W/gitea-build.log"))"
	exit 0
fi
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench
gitea_up "$GITEA_SH" "$W"

# prs DIR NAME COUNT: a repository NAME on the Gitea and its clone at DIR
# (landing: pr, pr_merge: none: nothing merges them, trusted) with COUNT
# tasks in QA, each with its own open pull request from approve --all.
prs() {
	local d=$1 name=$2 n=$3 i id wt
	gitea_repo "$d" "$name"
	sed -i 's/^max_parallel:.*/max_parallel: 0/; s/^build_command:.*/build_command: ""/' .burl/.workflow/config.yaml
	printf 'landing: pr\npr_merge: none\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -q -am "bench: land through pull requests, merged by nobody"
	git burl trust --yes >/dev/null
	for i in $(seq 1 "$n"); do
		git burl add "Task $i" --affects "src/t$i.txt" >/dev/null
		id=$(printf 'TASK-%03d' "$i")
		git burl claim "$id" >/dev/null 2>&1
		wt=$(git burl worktree "$id")
		mkdir -p "$wt/src"
		echo "task $i" >"$wt/src/t$i.txt"
		git -C "$wt" add -A && git -C "$wt" commit -q -m "task $i"
		git -C "$wt" burl submit "$id" >/dev/null
	done
	git burl approve --all >"$W/approve-$name.log" 2>&1 || die "approve --all in $name failed: $(tail -n 5 "$W/approve-$name.log")"
	local open
	open=$(api GET "/repos/burl/$name/pulls?state=open&limit=50" | jq length)
	[ "$open" = "$n" ] || die "$name has $open open pull requests, expected $n"
}

# round DIR: one settle round's request count; every pull request must
# still be open.
round() {
	local out
	out=$(git -C "$1" burl sync --settle --json 2>"$W/round.err") || die "sync --settle in $1 failed: $(cat "$W/round.err")"
	jq -e --argjson n "$2" '[.settle.prs[] | select(.result == "open")] | length == $n' <<<"$out" >/dev/null ||
		die "a pull request in $1 did not stay open: $out"
	jq -r '.settle.requests' <<<"$out"
}

t0=$(date +%s)
prs "$W/one" one 1
prs "$W/many" many "$N"
setup_s=$(($(date +%s) - t0))

# The first round after approve asks for every request's reviews (none
# was seen yet); after it a quiet round lists and nothing else. A change
# stamped in the last 5 s is not remembered as seen (forges stamp whole
# seconds) and is asked about again, so the rounds start once approve's
# last change is older.
sleep 6
first_one=$(round "$W/one" 1)
first_many=$(round "$W/many" "$N")
quiet_one=$(round "$W/one" 1)
quiet_many=$(round "$W/many" "$N")

# Timed quiet rounds, the two repositories one after the other in one
# hyperfine run.
hyperfine -N --style none --warmup 1 --runs "$RUNS" --export-json "$W/t.json" \
	"git -C $W/one burl sync --settle --json" "git -C $W/many burl sync --settle --json" >"$W/hf.log" 2>&1 ||
	die "hyperfine failed: $(tail -n 5 "$W/hf.log")"
med() { jq -r ".results[$1] | \"\(.median * 1000) \(.min * 1000) \(.max * 1000)\"" "$W/t.json"; }
read -r m1 lo1 hi1 <<<"$(med 0)"
read -r mN loN hiN <<<"$(med 1)"

# k pull requests change (a reviewer comments on each): the next round
# asks for exactly those k requests' reviews, the round after is quiet.
for i in $(seq 1 "$K"); do
	api POST "/repos/burl/many/issues/$i/comments" "{\"body\":\"bench comment $i\"}" "$GITEA_REVIEWER_TOKEN" >/dev/null
done
sleep 6
changed=$(round "$W/many" "$N")
after=$(round "$W/many" "$N")

# The checks. Both clones forget the checks they saw pass (none was
# required so far), main requires ci/test, and every head's is pending.
heads() { api GET "/repos/burl/$1/pulls?state=open&limit=50" | jq -r '.[].head.sha'; }
for r in one many; do
	api POST "/repos/burl/$r/branch_protections" '{"rule_name":"main","enable_status_check":true,"status_check_contexts":["ci/test"]}' >/dev/null
	jq 'del(.ci_passed)' "$W/$r/.git/burl/forge-state.json" >"$W/state.json" && mv "$W/state.json" "$W/$r/.git/burl/forge-state.json"
	for h in $(heads "$r"); do
		api POST "/repos/burl/$r/statuses/$h" '{"state":"pending","context":"ci/test"}' >/dev/null
	done
done
pend_one=$(round "$W/one" 1)
pend_many=$(round "$W/many" "$N")
hyperfine -N --style none --warmup 1 --runs "$RUNS" --export-json "$W/c.json" \
	"git -C $W/one burl sync --settle --json" "git -C $W/many burl sync --settle --json" >"$W/hf.log" 2>&1 ||
	die "hyperfine failed: $(tail -n 5 "$W/hf.log")"
read -r c1 clo1 chi1 <<<"$(jq -r '.results[0] | "\(.median * 1000) \(.min * 1000) \(.max * 1000)"' "$W/c.json")"
read -r cN cloN chiN <<<"$(jq -r '.results[1] | "\(.median * 1000) \(.min * 1000) \(.max * 1000)"' "$W/c.json")"
for r in one many; do
	for h in $(heads "$r"); do
		api POST "/repos/burl/$r/statuses/$h" '{"state":"success","context":"ci/test"}' >/dev/null
	done
done
passed_many=$(round "$W/many" "$N")
passed_quiet=$(round "$W/many" "$N")
cratio=$(echo "$cN / $c1" | bc -l)

ratio=$(echo "$mN / $m1" | bc -l)
met() { if (($(echo "$1" | bc))); then echo yes; else echo no; fi; }
printf '| measurement | %d open PRs | 1 open PR | ratio | target | met |\n| --- | --- | --- | --- | --- | --- |\n' "$N"
printf '| requests, first round after approve (no review seen yet) | %d | %d | — | — | — |\n' "$first_many" "$first_one"
printf '| requests, quiet round | %d | %d | — | 1 | %s |\n' "$quiet_many" "$quiet_one" "$(met "$quiet_many == 1 && $quiet_one == 1")"
printf '| requests, round after %d PRs got a comment | %d | — | — | %d | %s |\n' "$K" "$changed" $((1 + K)) "$(met "$changed == 1 + $K")"
printf '| requests, the round after that | %d | — | — | 1 | %s |\n' "$after" "$(met "$after == 1")"
printf '| quiet round, sync --settle --json (median of %d) | %.1f ms (%.1f–%.1f) | %.1f ms (%.1f–%.1f) | %.2f× | < 2× | %s |\n' \
	"$RUNS" "$mN" "$loN" "$hiN" "$m1" "$lo1" "$hi1" "$ratio" "$(met "$ratio < 2")"
printf '| requests, round with every head'"'"'s required check pending | %d | %d | %.1f× | < 2× | %s |\n' "$pend_many" "$pend_one" "$(echo "$pend_many / $pend_one" | bc -l)" "$(met "$pend_many < 2 * $pend_one")"
printf '| round with every head'"'"'s required check pending, sync --settle --json (median of %d) | %.1f ms (%.1f–%.1f) | %.1f ms (%.1f–%.1f) | %.2f× | < 2× | %s |\n' \
	"$RUNS" "$cN" "$cloN" "$chiN" "$c1" "$clo1" "$chi1" "$cratio" "$(met "$cratio < 2")"
printf '| requests, the round that sees every check passed | %d | — | — | — | — |\n' "$passed_many"
printf '| requests, quiet round after the checks passed | %d | — | — | 1 | %s |\n' "$passed_quiet" "$(met "$passed_quiet == 1")"
echo "(setup: $setup_s s for both repositories, Gitea $("$GITEA_SH" build | sed 's|.*/gitea-\([^/]*\)/gitea$|\1|'))" >&2
