#!/usr/bin/env bash
# Cost against history (DESIGN §13, issue 13), measured side by side in
# one run: the same add → claim → commit → submit → approve cycle in a
# young workflow (100 DONE tasks, 600 events) and in an old one
# (BENCH_HISTORY_TASKS DONE tasks, default 100,000, spread over two years
# in month shards, and 6 events per task in day shards). Per verb the
# median over BENCH_HISTORY_CYCLES cycles (default 7) and its ratio; the
# growth of .git/objects per cycle (loose object files' apparent size, gc
# off); status warm and cold; the peak RSS of every command. Needs
# git-burl on PATH and GNU time. Prints markdown rows.
set -euo pipefail
BIG=${BENCH_HISTORY_TASKS:-100000}
K=${BENCH_HISTORY_CYCLES:-7}
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-history-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench

# history DIR N: a repository whose workflow holds N DONE tasks completed
# over the two years before this month, and 6·N events, written the way
# burl writes them, committed in one commit; then `git burl init`, as
# after an upgrade.
history() {
	local d=$1 n=$2
	git init -q "$d"
	cd "$d"
	echo x >README.md
	git add -A && git commit -q -m init
	git burl init >/dev/null
	sed -i 's/^max_parallel:.*/max_parallel: 0/; s/^build_command:.*/build_command: ""/' .burl/.workflow/config.yaml
	git -C .burl commit -q -am config
	awk -v n="$n" -v dir="$d/.burl/.workflow" -v now="$(date -u +%s)" 'BEGIN {
		start = now - 730 * 86400
		for (i = 1; i <= n; i++) {
			t = start + int((i - 1) * (730 * 86400 / n))
			cmd = "date -u -d @" t " +%Y-%m:%Y-%m-%dT%H:%M:%SZ"
			if (i % 97 == 1 || !(month)) { cmd | getline v; close(cmd); split(v, a, ":"); month = a[1]; stamp = substr(v, 9) }
			if (!(month in made)) { system("mkdir -p " dir "/DONE/" month); made[month] = 1 }
			id = sprintf("TASK-%03d", i)
			f = dir "/DONE/" month "/" id "-implement-feature-" i ".md"
			print "---\nid: " id "\ntitle: Implement feature " i "\npriority: medium\ncreated: " stamp "\nassigned_to: agent-" (i % 16) "\nqa_attempts: 0\nstarted_at: " stamp "\nsubmitted_at: " stamp "\ncompleted_at: " stamp "\nworktree: null\nbranch: null\nbase_sha: null\naffects:\n  - src/f" i ".go\naffects_globs: []\nmust_not_touch: []\ndepends_on: []\ntags: []\n---\n\n## Objective\nFeature " i ".\n\n## QA Report\n### Approved\n" > f
			close(f)
		}
		per = int(n * 6 / 730)
		for (d = 0; d < 730; d++) {
			cmd = "date -u -d @" (start + d * 86400) " +%Y/%m/%Y-%m-%d"; cmd | getline p; close(cmd)
			split(p, a, "/"); sd = dir "/events/" a[1] "/" a[2]
			if (!(sd in mk)) { system("mkdir -p " sd); mk[sd] = 1 }
			f = sd "/" a[3] ".ndjson"
			for (k = 0; k < per; k++) {
				id = sprintf("TASK-%03d", int((d * per + k) / 6) + 1)
				printf "{\"ts\":\"%sT10:%02d:%02dZ\",\"task\":\"%s\",\"action\":\"claim\",\"actor\":\"agent-1\",\"details\":{\"from\":\"READY\",\"to\":\"DOING\"}}\n", a[3], int(k / 60) % 60, k % 60, id > f
			}
			close(f)
		}
	}'
	git -C .burl add -A .workflow
	git -C .burl commit -q -m "bench: $n tasks of history"
	git gc -q
	git burl init >/dev/null
}

# run NAME CMD...: time one command (ms, appended to $W/t.NAME) and its
# peak RSS (KiB, appended to $W/rss); its output is left in $W/out.
run() {
	local name=$1 t0 t1
	shift
	t0=$(date +%s%N)
	/usr/bin/time -f %M -o "$W/rss1" "$@" >"$W/out" 2>"$W/err" || {
		echo "history bench: $* failed:" >&2
		cat "$W/err" >&2
		exit 1
	}
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >>"$W/t.$name"
	cat "$W/rss1" >>"$W/rss"
}

objects() { find .git/objects -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }

# cycle TAG I: the Ith full cycle in the repository of TAG.
cycle() {
	local tag=$1 i=$2 wt id
	cd "$W/$tag"
	run "$tag.add" git burl add "Cycle $i" --affects "src/c$i.txt"
	id=$(sed -n 's/^Created \(TASK-[0-9]*\) .*/\1/p' "$W/out")
	run "$tag.claim" git burl claim "$id"
	wt=$(git burl worktree "$id")
	(cd "$wt" && mkdir -p src && echo "cycle $i" >"src/c$i.txt" && git add -A && git commit -q -m "cycle $i")
	(cd "$wt" && run "$tag.submit" git burl submit "$id")
	run "$tag.approve" git burl approve "$id"
}

# statuses TAG: status warm (three runs) and cold (its caches removed).
statuses() {
	cd "$W/$1"
	run "$1.status_warm" git burl status
	run "$1.status_warm" git burl status
	run "$1.status_warm" git burl status
	# What an agent that polls asks for (issue 25): the open tasks only.
	run "$1.status_open_json" git burl status --json --open
	run "$1.status_open_json" git burl status --json --open
	run "$1.status_open_json" git burl status --json --open
	rm -f .burl/.workflow/logs/status-cache* .burl/.workflow/logs/done-count.cache
	run "$1.status_cold" git burl status
}

median() { sort -n "$1" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

history "$W/young" 100
history "$W/old" "$BIG"
# The generator's files are written back before anything is timed, and
# the two workflows take turns, cycle by cycle, so that whatever else the
# machine does falls on both sides of each ratio.
sync
for t in young old; do (cd "$W/$t" && objects) >"$W/objects0.$t"; done
for ((i = 1; i <= K; i++)); do
	cycle young "$i"
	cycle old "$i"
done
for t in young old; do
	echo $((($(cd "$W/$t" && objects) - $(cat "$W/objects0.$t")) / K)) >"$W/objects.$t"
	statuses "$t"
done

printf '| measurement | %s DONE tasks | 100 DONE tasks | ratio | target | met |\n| --- | --- | --- | --- | --- | --- |\n' "$BIG"
for v in add claim submit approve; do
	o=$(median "$W/t.old.$v") y=$(median "$W/t.young.$v")
	r=$(echo "$o / $y" | bc -l)
	printf '| %s (median of %d) | %d ms | %d ms | %.2f× | ≤ 1.5× | %s |\n' "$v" "$K" "$o" "$y" "$r" "$(if (($(echo "$r <= 1.5" | bc))); then echo yes; else echo no; fi)"
done
o=$(cat "$W/objects.old") y=$(cat "$W/objects.young")
printf '| .git/objects growth per full cycle | %d KiB | %d KiB | %.2f× | < 64 KiB | %s |\n' $((o / 1024)) $((y / 1024)) "$(echo "$o / $y" | bc -l)" "$( ((o < 65536)) && echo yes || echo no)"
for s in warm cold; do
	o=$(median "$W/t.old.status_$s") y=$(median "$W/t.young.status_$s")
	lim=$([ $s = warm ] && echo 100 || echo 1000)
	printf '| status, %s | %d ms | %d ms | %.2f× | < %d ms | %s |\n' "$s" "$o" "$y" "$(echo "$o / $y" | bc -l)" "$lim" "$( ((o < lim)) && echo yes || echo no)"
done
o=$(median "$W/t.old.status_open_json") y=$(median "$W/t.young.status_open_json")
r=$(echo "$o / $y" | bc -l)
printf '| status --json --open, warm | %d ms | %d ms | %.2f× | ≤ 1.5× | %s |\n' "$o" "$y" "$r" "$(if (($(echo "$r <= 1.5" | bc))); then echo yes; else echo no; fi)"
peak=$(sort -n "$W/rss" | tail -n 1)
printf '| peak RSS of every command above | %.1f MiB | — | — | ≤ 30 MiB | %s |\n' "$(echo "$peak / 1024" | bc -l)" "$( ((peak <= 30720)) && echo yes || echo no)"
