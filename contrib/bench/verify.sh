#!/usr/bin/env bash
# Landing records (DESIGN §22), measured side by side in one run:
#   1. git burl verify over BENCH_VERIFY_COMMITS (10,000) landed commits,
#      each with its record, against git log --notes=burl over the same
#      range (target ≤ 2×); hyperfine, BENCH_RUNS runs after a warm-up.
#   2. approve with its record against approve built from
#      BENCH_NOTES_BASE, a commit before records (default: the parent of
#      the commit that added pkg/record/land.go): BENCH_VERIFY_CYCLES (9)
#      add → claim → commit → submit → approve cycles in two identical
#      repositories, taking turns, approve's median each (target ≤ 1.1×).
# The history is written the way burl writes it (notes fanned out by git
# fast-import, events in day shards, DONE in month shards), in one
# fast-import. Needs git-burl on PATH, hyperfine, jq and go. Prints
# markdown rows; BENCH_KEEP=1 keeps the scratch directory.
set -euo pipefail
N=${BENCH_VERIFY_COMMITS:-10000}
K=${BENCH_VERIFY_CYCLES:-9}
RUNS=${BENCH_RUNS:-10}
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-verify-bench.XXXXXX")
cleanup() {
	git -C "$here/../.." worktree remove --force "$W/before-src" >/dev/null 2>&1 || true
	if [ -z "${BENCH_KEEP:-}" ]; then rm -rf "$W"; else echo "kept $W" >&2; fi
}
trap cleanup EXIT
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench
say() { printf '• %s\n' "$*" >&2; }

# record I COMMIT TREE BASE: the landing record of task I, as burl writes
# it for a task an agent did (awk, shared by both passes below).
read -r -d '' RECORD <<'AWK' || true
function record(i, c, t, b) {
	return sprintf("{\"burl_record\":1,\"task\":\"TASK-%03d\",\"title\":\"Implement feature %d of the parser\",\"landing\":{\"kind\":\"queue\"},\"main_branch\":\"main\",\"base\":\"%s\",\"commits\":[\"%s\"],\"tree\":\"%s\",\"submitted_sha\":\"%s\",\"gates\":{\"scope\":{\"result\":\"pass\",\"inputs_sha256\":\"%064d\"},\"stubs\":{\"result\":\"pass\",\"inputs_sha256\":\"%064d\"},\"build\":{\"result\":\"pass\",\"inputs_sha256\":\"%064d\",\"command\":\"go test ./...\",\"exit\":0,\"seconds\":41.2},\"verify\":{\"result\":\"none\",\"inputs_sha256\":\"%064d\"}},\"worker\":\"coder@build-1\",\"agent\":{\"name\":\"coder\",\"preset\":\"claude-code\",\"model\":\"claude-sonnet-4-5\"},\"attempts\":{\"runs\":1,\"qa\":0},\"cost\":{\"input_tokens\":81234,\"output_tokens\":5120,\"cost_usd\":0.42},\"approved_by\":\"coder@build-1\",\"landed_at\":\"%s\"}", i, i, b, c, t, c, 1, 2, 3, 4, stamp(i))
}
function day(i) { d = int((i - 1) * 336 / n); return sprintf("2025-%02d-%02d", 1 + int(d / 28), 1 + d % 28) }
function stamp(i) { return day(i) "T10:00:00Z" }
AWK

# landed DIR: a repository whose main holds N commits, each landed by
# burl: its note, its task in DONE, its events with the record's sha256.
landed() {
	local d=$1
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
	git log --reverse --format='%H %T' main >"$W/log"
	mkdir -p "$W/notes"
	LC_ALL=C awk -v n="$N" -v dir="$W/notes" "$RECORD"'
		NR == 1 { base = $1; next }
		{ i = NR - 1; f = sprintf("%s/%06d", dir, i); print record(i, $1, $2, base) > f; close(f); base = $1 }' "$W/log"
	(cd "$W/notes" && find . -type f | LC_ALL=C sort | xargs sha256sum) >"$W/sums"
	LC_ALL=C awk -v n="$N" "$RECORD"'
		FNR == 1 { file++ }
		file == 1 { h[FNR] = $1; next }
		file == 2 && FNR == 1 { init = $1; base = $1; next }
		file == 2 { i = FNR - 1; c[i] = $1; t[i] = $2; b[i] = base; base = $1 }
		END {
			printf "commit refs/notes/burl\ncommitter bench <bench@burl.invalid> 1735689600 +0000\ndata 12\nbench notes\n"
			for (i = 1; i <= n; i++) { r = record(i, c[i], t[i], b[i]) "\n"; printf "N inline %s\ndata %d\n%s\n", c[i], length(r), r }
			printf "\ncommit refs/heads/burl\ncommitter bench <bench@burl.invalid> 1735689600 +0000\ndata 11\nbench burl\n"
			cfg = "main_branch: main\nremote: origin\n"
			printf "M 644 inline .workflow/config.yaml\ndata %d\n%s\n", length(cfg), cfg
			ev[day(1)] = sprintf("{\"ts\":\"%sT00:00:00Z\",\"task\":null,\"action\":\"init\",\"actor\":\"bench\",\"details\":{\"files\":9,\"how\":\"created\",\"main_sha\":\"%s\"}}\n", day(1), init)
			for (i = 1; i <= n; i++) {
				id = sprintf("TASK-%03d", i); s = stamp(i)
				ev[day(i)] = ev[day(i)] sprintf("{\"ts\":\"%s\",\"task\":\"%s\",\"action\":\"add\",\"actor\":\"bench\",\"details\":{\"priority\":\"medium\",\"title\":\"Implement feature %d of the parser\"}}\n", s, id, i)
				ev[day(i)] = ev[day(i)] sprintf("{\"ts\":\"%s\",\"task\":\"%s\",\"action\":\"claim\",\"actor\":\"coder@build-1\",\"details\":{\"base_sha\":\"%s\",\"branch\":\"task-%03d-implement\",\"from\":\"READY\",\"to\":\"DOING\"}}\n", s, id, b[i], i)
				ev[day(i)] = ev[day(i)] sprintf("{\"ts\":\"%s\",\"task\":\"%s\",\"action\":\"run_start\",\"actor\":\"coder@build-1\",\"details\":{\"agent\":\"coder\",\"attempt\":1,\"preset\":\"claude-code\"}}\n", s, id)
				ev[day(i)] = ev[day(i)] sprintf("{\"ts\":\"%s\",\"task\":\"%s\",\"action\":\"submit\",\"actor\":\"coder@build-1\",\"details\":{\"commits\":1,\"from\":\"DOING\",\"submitted_sha\":\"%s\",\"to\":\"QA\"}}\n", s, id, c[i])
				ev[day(i)] = ev[day(i)] sprintf("{\"ts\":\"%s\",\"task\":\"%s\",\"action\":\"run_end\",\"actor\":\"coder@build-1\",\"details\":{\"agent\":\"coder\",\"attempt\":1,\"exit\":0,\"result\":\"submitted\"}}\n", s, id)
				ev[day(i)] = ev[day(i)] sprintf("{\"ts\":\"%s\",\"task\":\"%s\",\"action\":\"approve\",\"actor\":\"coder@build-1\",\"details\":{\"base\":\"%s\",\"drift\":0,\"from\":\"QA\",\"merged_sha\":\"%s\",\"pushed\":true,\"record_sha256\":\"%s\",\"to\":\"DONE\"}}\n", s, id, b[i], c[i], h[i])
				f = sprintf("---\nid: %s\ntitle: Implement feature %d of the parser\npriority: medium\ncreated: %s\nassigned_to: coder@build-1\nqa_attempts: 0\nstarted_at: %s\nsubmitted_at: %s\ncompleted_at: %s\nworktree: null\nbranch: null\nbase_sha: %s\naffects:\n  - src/parser/p%d.go\naffects_globs: []\nmust_not_touch: []\ndepends_on: []\ntags: [parser]\nport: null\nsubmitted_sha: %s\n---\n\n## Objective\nFeature %d parses its part of the grammar.\n\n## QA Report\n### Approved — merged into main\n\n- scope: pass\n- stubs: pass\n- build: pass\n", id, i, s, s, s, s, b[i], i % 997, c[i], i)
				printf "M 644 inline .workflow/DONE/%s/%s-implement-feature-%d-of-the-parser.md\ndata %d\n%s\n", substr(day(i), 1, 7), id, i, length(f), f
			}
			for (dy in ev) printf "M 644 inline .workflow/events/%s/%s/%s.ndjson\ndata %d\n%s\n", substr(dy, 1, 4), substr(dy, 6, 2), dy, length(ev[dy]), ev[dy]
		}' "$W/sums" "$W/log" | git fast-import --quiet
	git gc -q
}

# ---------------------------------------------------------------- verify
say "verify: $N landed commits"
landed "$W/big"
cd "$W/big"
init=$(git rev-list --max-parents=0 main)
out=$(git burl verify 2>&1) || true
case $out in *"$N landed by burl, 0 not landed by burl, 0 whose record does not match"*) ;; *)
	echo "verify bench: git burl verify did not find every commit landed:" >&2
	printf '%s\n' "$out" | head -n 5 >&2
	exit 1
	;;
esac
hyperfine -N --style none --warmup 1 --runs "$RUNS" --export-json "$W/verify.json" \
	"git burl verify" "git log --notes=burl $init..main" >"$W/hf.log" 2>&1 || {
	tail -5 "$W/hf.log" >&2
	exit 1
}
v=$(jq -r '.results[0].median * 1000' "$W/verify.json")
l=$(jq -r '.results[1].median * 1000' "$W/verify.json")
r=$(awk "BEGIN { print $v / $l }")

# ---------------------------------------------------------------- approve
base=${BENCH_NOTES_BASE:-$(git -C "$here/../.." log --diff-filter=A --format=%H -- pkg/record/land.go | tail -n 1)^}
say "approve: this burl against $base (no landing records)"
git -C "$here/../.." worktree add -q --detach "$W/before-src" "$base"
(cd "$W/before-src" && make -s build >/dev/null)
before="$W/before-src/bin"

# cycle DIR BIN I: one add → claim → commit → submit → approve in DIR with
# the burl in BIN; approve's milliseconds go to DIR.t.
cycle() {
	local d=$1 bin=$2 i=$3 id wt t0 t1
	cd "$d"
	id=$(PATH="$bin:$PATH" git burl add "Cycle $i" --affects "src/c$i.txt" | sed -n 's/^Created \(TASK-[0-9]*\) .*/\1/p')
	wt=$(PATH="$bin:$PATH" git burl claim "$id" | tail -n 1)
	(cd "$wt" && mkdir -p src && echo "cycle $i" >"src/c$i.txt" && git add -A && git commit -q -m "cycle $i" && PATH="$bin:$PATH" git burl submit "$id" >/dev/null)
	t0=$(date +%s%N)
	PATH="$bin:$PATH" git burl approve "$id" >/dev/null
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >>"$d.t"
}
for tag in now before; do
	git init -q "$W/$tag"
	(cd "$W/$tag" && echo x >README && git add -A && git commit -q -m init && git burl init >/dev/null &&
		sed -i 's/^build_command:.*/build_command: ""/' .burl/.workflow/config.yaml && git -C .burl commit -q --allow-empty -am config)
done
nowbin=$(dirname "$(command -v git-burl)")
for ((i = 1; i <= K; i++)); do
	cycle "$W/now" "$nowbin" "$i"
	cycle "$W/before" "$before" "$i"
done
median() { sort -n "$1" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
a=$(median "$W/now.t") b=$(median "$W/before.t")
ra=$(awk "BEGIN { print $a / $b }")
[ "$(git -C "$W/now" rev-list --count refs/notes/burl)" = "$K" ] || {
	echo "verify bench: the approves wrote $(git -C "$W/now" rev-list --count refs/notes/burl) notes commits, not $K" >&2
	exit 1
}

printf '| measurement | burl | baseline | ratio | target | met |\n| --- | --- | --- | --- | --- | --- |\n'
printf '| git burl verify, %d landed commits (all ✓) | %.0f ms | git log --notes=burl, same range: %.0f ms | %.2f× | ≤ 2× | %s |\n' \
	"$N" "$v" "$l" "$r" "$(awk "BEGIN { print ($r <= 2) ? \"yes\" : \"no\" }")"
printf '| approve with its landing record (median of %d) | %d ms | approve before records (%s): %d ms | %.2f× | ≤ 1.1× | %s |\n' \
	"$K" "$a" "$(git -C "$here/../.." rev-parse --short "$base")" "$b" "$ra" "$(awk "BEGIN { print ($ra <= 1.1) ? \"yes\" : \"no\" }")"
