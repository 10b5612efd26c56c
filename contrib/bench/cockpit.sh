#!/usr/bin/env bash
# The lead's cockpit (DESIGN §27), measured side by side in one run:
#   1. git burl stats (--json, and --by agent) over BENCH_COCKPIT_TASKS
#      (10,000) landed tasks — main with a commit each, and the event log
#      burl writes for them (add, claim, run_start, run_end with a cost,
#      submit, approve; one in ten rejected once, a second round) in day
#      shards — against git log over the same main (target ≤ 2×).
#   2. git burl inbox against git burl status on 10,000 tasks spread over
#      the buckets like a long-lived project (target: inbox ≤ status).
# The median of BENCH_RUNS runs after a warm-up, the commands taking turns
# (so a load spike falls on both). Needs git-burl on PATH and jq. Prints
# markdown rows; BENCH_KEEP=1 keeps the scratch directory;
# BENCH_COCKPIT_STATS_ONLY=1 stops after the stats half.
# shellcheck disable=SC2016 # the rows' backquotes are markdown
set -euo pipefail
N=${BENCH_COCKPIT_TASKS:-10000}
RUNS=${BENCH_RUNS:-10}
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-cockpit-bench.XXXXXX")
cleanup() { if [ -z "${BENCH_KEEP:-}" ]; then rm -rf "$W"; else echo "kept $W" >&2; fi; }
trap cleanup EXIT
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench
say() { printf '• %s\n' "$*" >&2; }

# race NAME CMD...: time each command (one word list per argument, split
# on spaces) BENCH_RUNS times, taking turns after one warm-up run each;
# the median milliseconds of the i-th command go to $W/NAME.i.
race() {
	local name=$1 k c t0 t1
	shift
	for c in "$@"; do
		# shellcheck disable=SC2086 # a command is its words
		$c >/dev/null 2>&1
	done
	for ((k = 0; k < RUNS; k++)); do
		local i=0
		for c in "$@"; do
			t0=$(date +%s%N)
			# shellcheck disable=SC2086
			$c >/dev/null 2>&1
			t1=$(date +%s%N)
			echo $(((t1 - t0) / 1000)) >>"$W/$name.$i.us"
			i=$((i + 1))
		done
	done
	local i=0
	for c in "$@"; do
		sort -n "$W/$name.$i.us" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f\n", m / 1000 }' >"$W/$name.$i"
		i=$((i + 1))
	done
}

# ------------------------------------------------------------------ stats
say "stats: main with $N landed commits and their event log"
d="$W/landed"
git init -q "$d"
cd "$d"
LC_ALL=C awk -v n="$N" 'BEGIN {
	printf "commit refs/heads/main\nmark :1\ncommitter bench <bench@burl.invalid> 1735689600 +0000\ndata 4\ninit\nM 644 inline README\ndata 2\nx\n\n"
	for (i = 1; i <= n; i++) {
		m = sprintf("Implement feature %d of the parser\n", i)
		printf "commit refs/heads/main\nmark :%d\ncommitter bench <bench@burl.invalid> %d +0000\ndata %d\n%sfrom :%d\n", i + 1, 1735689600 + i * 60, length(m), m, i
		v = sprintf("feature %d\n", i)
		printf "M 644 inline src/parser/p%d.go\ndata %d\n%s\n", i % 997, length(v), v
	}
}' | git fast-import --quiet
git reset -q --hard main
git burl init >/dev/null
LC_ALL=C awk -v n="$N" -v dir="$d/.burl/.workflow/events" 'BEGIN {
	for (i = 1; i <= n; i++) {
		dd = int((i - 1) * 336 / n); m = 1 + int(dd / 28); day = 1 + dd % 28
		sd = sprintf("%s/2025/%02d", dir, m)
		if (!(sd in mk)) { system("mkdir -p " sd); mk[sd] = 1 }
		f = sprintf("%s/2025-%02d-%02d.ndjson", sd, m, day)
		id = sprintf("TASK-%03d", i); a = (i % 2) ? "alice" : "bob"; mo = (i % 2) ? "m-a" : "m-b"
		ts = sprintf("2025-%02d-%02dT%02d:%02d:", m, day, 8 + int(i / 60) % 10, i % 60)
		printf "{\"ts\":\"%s00Z\",\"task\":\"%s\",\"action\":\"add\",\"actor\":\"lead@h\",\"details\":{\"priority\":\"medium\",\"title\":\"Implement feature %d of the parser\"}}\n", ts, id, i > f
		rounds = (i % 10 == 0) ? 2 : 1
		for (r = 1; r <= rounds; r++) {
			printf "{\"ts\":\"%s1%dZ\",\"task\":\"%s\",\"action\":\"claim\",\"actor\":\"%s@h\",\"details\":{\"base_sha\":\"%040d\",\"branch\":\"task-%d\",\"from\":\"READY\",\"to\":\"DOING\"}}\n", ts, r, id, a, 0, i > f
			printf "{\"ts\":\"%s2%dZ\",\"task\":\"%s\",\"action\":\"run_start\",\"actor\":\"%s@h\",\"details\":{\"agent\":\"%s\",\"attempt\":%d,\"log\":\"logs/%s.log\"}}\n", ts, r, id, a, a, r, id > f
			printf "{\"ts\":\"%s3%dZ\",\"task\":\"%s\",\"action\":\"submit\",\"actor\":\"%s@h\",\"details\":{\"commits\":1,\"from\":\"DOING\",\"submitted_sha\":\"%040d\",\"to\":\"QA\"}}\n", ts, r, id, a, i > f
			printf "{\"ts\":\"%s4%dZ\",\"task\":\"%s\",\"action\":\"run_end\",\"actor\":\"%s@h\",\"details\":{\"agent\":\"%s\",\"attempt\":%d,\"duration_ms\":61234,\"exit\":0,\"result\":\"submitted\",\"usage\":{\"input_tokens\":81234,\"output_tokens\":5120,\"cost_usd\":0.42,\"model\":\"%s\",\"source\":\"usage_file\"}}}\n", ts, r, id, a, a, r, mo > f
			if (r < rounds) printf "{\"ts\":\"%s5%dZ\",\"task\":\"%s\",\"action\":\"reject\",\"actor\":\"lead@h\",\"details\":{\"from\":\"QA\",\"qa_attempts\":1,\"reason\":\"not yet\",\"to\":\"READY\"}}\n", ts, r, id > f
		}
		printf "{\"ts\":\"%s59Z\",\"task\":\"%s\",\"action\":\"approve\",\"actor\":\"watch@h\",\"details\":{\"base\":\"%040d\",\"drift\":0,\"from\":\"QA\",\"merged_sha\":\"%040d\",\"to\":\"DONE\"}}\n", ts, id, i, i > f
	}
}'
git -C .burl add -A .workflow
git -C .burl commit -q -m "bench: the event log of $N landed tasks"
events=$(find .burl/.workflow/events -name '*.ndjson' -exec cat {} + | wc -l)
landed=$(git burl stats --json | jq .total.landed)
[ "$landed" = "$N" ] || { echo "bench: stats counts $landed landed, not $N" >&2; exit 1; }
race stats "git burl stats --json" "git burl stats --by agent" "git log main"
s=$(cat "$W/stats.0") sa=$(cat "$W/stats.1") l=$(cat "$W/stats.2")

[ -z "${BENCH_COCKPIT_STATS_ONLY:-}" ] || { echo "stats ${s} ms, --by agent ${sa} ms, git log ${l} ms"; exit 0; }

# ------------------------------------------------------------------ inbox
say "inbox against status: $N tasks over the buckets"
d="$W/tasks"
new_repo "$d"
gen_tasks "$d" "$N"
cd "$d"
git burl status >/dev/null
race inbox "git burl inbox" "git burl status" "git burl inbox --json" "git burl status --json --open"
i=$(cat "$W/inbox.0") st=$(cat "$W/inbox.1") ij=$(cat "$W/inbox.2") sj=$(cat "$W/inbox.3")

ratio() { awk "BEGIN { printf \"%.2f\", $1 / $2 }"; }
met() { if awk "BEGIN { exit !($1) }"; then echo "✅ met"; else echo "❌ not met"; fi; }
printf '| measure | burl | against | ratio | target |\n| --- | --- | --- | --- | --- |\n'
printf '| `stats --json`, %d landed tasks (%d events) | %.1f ms | `git log main` %.1f ms | %s× | ≤ 2× %s |\n' "$N" "$events" "$s" "$l" "$(ratio "$s" "$l")" "$(met "$s <= 2 * $l")"
printf '| `stats --by agent`, same | %.1f ms | `git log main` %.1f ms | %s× | ≤ 2× %s |\n' "$sa" "$l" "$(ratio "$sa" "$l")" "$(met "$sa <= 2 * $l")"
printf '| `inbox`, %d tasks | %.1f ms | `status` %.1f ms | %s× | ≤ 1× %s |\n' "$N" "$i" "$st" "$(ratio "$i" "$st")" "$(met "$i <= $st")"
printf '| `inbox --json`, same | %.1f ms | `status --json --open` %.1f ms | %s× | — |\n' "$ij" "$sj" "$(ratio "$ij" "$sj")"
