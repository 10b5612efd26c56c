#!/usr/bin/env bash
# make bench: burl measured side by side with git's own floor and with the
# tools users would pick instead, on the same data in the same run. Prints
# one markdown table and saves it with the machine's description to
# contrib/bench/RESULTS.md (the README points there).
# Results are reported, never asserted (DESIGN §8).
#
# Environment: BENCH_RUNS (timed runs per row, default 10, after one
# warm-up; on a shared machine five medians swing too much), BENCH_CONTENTION_RUNS
# (default 5: each is 400 claims), BENCH_KEEP=1 keeps the scratch directory,
# BENCH_OUT overrides RESULTS.md, BENCH_ONLY="claim status" runs those
# sections and only prints their rows.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RUNS=${BENCH_RUNS:-10}
CONTENTION_RUNS=${BENCH_CONTENTION_RUNS:-5}
OUT=${BENCH_OUT:-$here/RESULTS.md}
GITLEAKS_VERSION=v8.30.1
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-bench.XXXXXX")
cleanup() { if [ -z "${BENCH_KEEP:-}" ]; then rm -rf "$W"; else echo "kept $W" >&2; fi; }
trap cleanup EXIT

say() { printf '• %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

command -v git-burl >/dev/null || die "git-burl is not on PATH (run make bench)"
command -v hyperfine >/dev/null || die "hyperfine is missing (apt-get install hyperfine)"
command -v jq >/dev/null || die "jq is missing (apt-get install jq)"

# Isolate every git command from the machine's own configuration, the way
# the bats tests do, so a user's hooks or aliases never skew a number.
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench

# ---------------------------------------------------------------- peers
# A peer row is skipped with a note, never fatal, when its tool cannot be
# installed here.
have_apt() { command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; }
ensure_time() {
	[ -x /usr/bin/time ] && return 0
	have_apt && { apt-get install -y -qq time >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq time >/dev/null 2>&1; }; }
	[ -x /usr/bin/time ]
}
ensure_git_secrets() {
	command -v git-secrets >/dev/null && return 0
	have_apt && { apt-get install -y -qq git-secrets >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq git-secrets >/dev/null 2>&1; }; }
	command -v git-secrets >/dev/null
}
GITLEAKS=""
ensure_gitleaks() {
	local gobin
	gobin=$(go env GOPATH 2>/dev/null)/bin
	for c in "$(command -v gitleaks || true)" "$gobin/gitleaks"; do
		if [ -x "$c" ] && go version -m "$c" 2>/dev/null | grep -q "gitleaks/v8[[:space:]]*$GITLEAKS_VERSION"; then
			GITLEAKS=$c
			return 0
		fi
	done
	command -v go >/dev/null || return 1
	(cd "$W" && GOFLAGS='' go install "github.com/zricethezav/gitleaks/v8@$GITLEAKS_VERSION") >"$W/gitleaks-install.log" 2>&1 || return 1
	GITLEAKS=$gobin/gitleaks
	[ -x "$GITLEAKS" ]
}
ensure_backlog() {
	command -v backlog >/dev/null && return 0
	command -v npm >/dev/null || return 1
	npm install -g --silent backlog.md >"$W/npm-install.log" 2>&1 || return 1
	command -v backlog >/dev/null
}

ensure_time || die "/usr/bin/time is missing and could not be installed (apt-get install time)"

# ---------------------------------------------------------------- measuring
mkdir -p "$W/json"
: >"$W/rows.md"
: >"$W/rss.txt"

# hf NAME [hyperfine options] COMMAND: NAME's runs go to json/NAME.json.
hf() {
	local name=$1
	shift
	hyperfine -N --style none --warmup 1 --runs "$RUNS" --export-json "$W/json/$name.json" "$@" >"$W/json/$name.log" 2>&1 ||
		die "hyperfine $name failed: $(tail -5 "$W/json/$name.log")"
}
# ms NAME FIELD: median, min or max of NAME in milliseconds.
ms() { jq -r ".results[0].$2 * 1000" "$W/json/$1.json"; }
# cell NAME: "12.3 ms (11.9–13.0)".
cell() { printf '%.1f ms (%.1f–%.1f)' "$(ms "$1" median)" "$(ms "$1" min)" "$(ms "$1" max)"; }
calc() { awk "BEGIN { print $* }"; }
# yes_no CONDITION: the condition is an awk expression; parenthesised, as
# awk would read a bare `print a > b` as a redirection.
yes_no() { if [ "$(calc "(($1) ? 1 : 0)")" = 1 ]; then echo "✅ met"; else echo "❌ not met"; fi; }

# rss WHAT COMMAND...: the command's max RSS in KiB (its git children
# included: wait4 reports the largest of the process tree), also noted in
# rss.txt for the peak-memory row (this runs in command substitutions).
rss() {
	local what=$1
	shift
	/usr/bin/time -v -o "$W/time.out" "$@" >/dev/null 2>&1 || true
	local kb
	kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$W/time.out")
	printf '%s\t%s\n' "$kb" "$what" >>"$W/rss.txt"
	echo "$kb"
}
mib() { printf '%.1f MiB' "$(calc "$1 / 1024")"; }

# row MEASUREMENT BURL FLOOR RATIO PEERS TARGET MET RSS: one line of the
# table, kept in a file because each section runs in a subshell.
row() {
	local s="|" c
	for c in "$@"; do s+=" $c |"; done
	printf '%s\n' "$s" >>"$W/rows.md"
}

# The fixtures (new_repo, gen_tasks) are in lib.sh: mcp.sh builds the same.

# ---------------------------------------------------------------- dispatcher
bench_dispatch() {
	say "dispatcher startup"
	mkdir -p "$W/hello/bin"
	printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$W/hello/main.go"
	printf 'module hello\n\ngo 1.21\n' >"$W/hello/go.mod"
	(cd "$W/hello" && GOFLAGS='' go build -trimpath -ldflags '-s -w' -o bin/git-hello .)
	local hello=$W/hello/bin/git-hello
	export PATH="$W/hello/bin:$PATH"
	hf hello "$hello"
	hf githello "git hello"
	hf burl_version "git-burl --version"
	# git burl alone prints its usage and exits 1 (nothing was asked).
	hf git_burl -i "git burl"
	hf git_burl_version "git burl --version"
	local m
	for m in "git burl (no verb)|git_burl|githello|git burl" "git burl --version|git_burl_version|githello|git burl --version" \
		"git-burl --version (direct exec)|burl_version|hello|git-burl --version"; do
		IFS='|' read -r label name floor cmd <<<"$m"
		local ratio kb
		ratio=$(calc "$(ms "$name" median) / $(ms "$floor" median)")
		# shellcheck disable=SC2086 # cmd is a plain word list
		kb=$(rss "$label" $cmd)
		row "$label" "$(cell "$name")" "$(cell "$floor") Go hello-world ($([ "$floor" = hello ] && echo direct || echo via git))" \
			"$(printf '%.2f×' "$ratio")" "—" "≤ 10 ms, ≤ 2× floor" \
			"$(yes_no "$(ms "$name" median) <= 10 && $ratio <= 2")" "$(mib "$kb")"
	done
}

# ---------------------------------------------------------------- status
status_floor_script() {
	cat >"$W/status-floor.sh" <<'EOF'
#!/usr/bin/env bash
# git's floor for status: list the workflow branch's index and read every task file.
git -C "$1/.burl" ls-files -s >/dev/null
find "$1/.burl/.workflow" -name 'TASK-*.md' -exec cat {} + >/dev/null
EOF
	chmod +x "$W/status-floor.sh"
}

# status_cache DIR: where the status cache of DIR lives (machine-local,
# beside the task files whose filesystem clock it reads).
status_cache() { echo "$1/.burl/.workflow/logs/status-cache"; }

bench_status() {
	local n=$1 d=$W/status-$1
	say "status over $n tasks: generating"
	new_repo "$d"
	gen_tasks "$d" "$n"
	status_floor_script
	hf "floor_status_$n" "$W/status-floor.sh $d"
	say "status over $n tasks: measuring"
	hf "status_$n" "git -C $d burl status"
	hf "status_json_$n" "git -C $d burl status --json"
	local cache
	cache=$(status_cache "$d")
	hf "status_cold_$n" --prepare "rm -f $cache" "git -C $d burl status"
	local peers="—"
	if [ "$n" = 1000 ]; then peers=$(bench_backlog "$n"); fi
	local f="floor_status_$n" kb
	kb=$(rss "status $n" git -C "$d" burl status)
	row "status, $n tasks, warm (nothing changed)" "$(cell "status_$n")" "$(cell "$f")" \
		"$(printf '%.2f×' "$(calc "$(ms "status_$n" median) / $(ms "$f" median)")")" "$peers" \
		"$([ "$n" = 10000 ] && echo '≤ 60 ms' || echo '—')" \
		"$(if [ "$n" = 10000 ]; then yes_no "$(ms "status_$n" median) <= 60"; else echo '—'; fi)" "$(mib "$kb")"
	kb=$(rss "status --json $n" git -C "$d" burl status --json)
	row "status --json, $n tasks, warm" "$(cell "status_json_$n")" "$(cell "$f")" \
		"$(printf '%.2f×' "$(calc "$(ms "status_json_$n" median) / $(ms "$f" median)")")" "—" \
		"$([ "$n" = 10000 ] && echo '≤ 60 ms' || echo '—')" \
		"$(if [ "$n" = 10000 ]; then yes_no "$(ms "status_json_$n" median) <= 60"; else echo '—'; fi)" "$(mib "$kb")"
	rm -f "$cache"
	kb=$(rss "status cold $n" git -C "$d" burl status)
	row "status, $n tasks, cold (no cache)" "$(cell "status_cold_$n")" "$(cell "$f")" \
		"$(printf '%.2f×' "$(calc "$(ms "status_cold_$n" median) / $(ms "$f" median)")")" "—" \
		"$([ "$n" = 10000 ] && echo '≤ 400 ms' || echo '—')" \
		"$(if [ "$n" = 10000 ]; then yes_no "$(ms "status_cold_$n" median) <= 400"; else echo '—'; fi)" "$(mib "$kb")"
}

# bench_backlog N: Backlog.md's `task list --plain` over N tasks in its own
# format, with the same ids, titles and states; prints the peer cell.
bench_backlog() {
	local n=$1 d=$W/backlog
	if ! ensure_backlog; then
		echo "Backlog.md: skipped (npm install -g backlog.md failed)"
		return
	fi
	mkdir -p "$d"
	git init -q "$d"
	git -C "$d" commit -q --allow-empty -m init
	(cd "$d" && backlog init bench --defaults --check-branches false --integration-mode none </dev/null >/dev/null 2>&1) || {
		echo "Backlog.md: skipped (backlog init failed)"
		return
	}
	awk -v n="$n" -v dir="$d/backlog/tasks" 'BEGIN {
		for (i = 1; i <= n; i++) {
			r = i % 100; s = "To Do"
			if (r < 70) s = "Done"; else if (r < 90) s = "To Do"; else s = "In Progress"
			f = sprintf("%s/task-%d - Implement-feature-%d-of-the-parser.md", dir, i, i)
			print "---\nid: TASK-" i "\ntitle: Implement feature " i " of the parser\nstatus: " s > f
			print "assignee: []\ncreated_date: '\''2024-01-01 00:00'\''\nlabels:\n  - parser\ndependencies: []\nordinal: " i * 1000 "\n---" > f
			print "\n## Description\n\n<!-- SECTION:DESCRIPTION:BEGIN -->\nFeature " i " parses its part of the grammar.\n<!-- SECTION:DESCRIPTION:END -->" > f
			close(f)
		}
	}'
	git -C "$d" add -A
	git -C "$d" commit -q -m tasks
	local got
	got=$(cd "$d" && { backlog task list --plain </dev/null 2>/dev/null || true; } | grep -c 'TASK-')
	if [ "$got" -lt "$((n * 3 / 10))" ]; then
		echo "Backlog.md: skipped (listed $got of $n tasks)"
		return
	fi
	(cd "$d" && hf backlog "backlog task list --plain")
	printf 'Backlog.md %s task list --plain: %s' "$(backlog --version 2>/dev/null)" "$(cell backlog)"
}

# ---------------------------------------------------------------- claim
bench_claim() {
	local n=$1 d=$W/claim-$1 label=$2
	say "claim, $label"
	new_repo "$d"
	gen_tasks "$d" "$n" all-ready
	local snap file branch
	snap=$(git -C "$d/.burl" rev-parse HEAD)
	file=$(cd "$d/.burl/.workflow/READY" && echo TASK-001-*.md)
	branch=task-001-${file#TASK-001-}
	branch=${branch%.md}
	cat >"$W/claim-reset-$n.sh" <<EOF
#!/usr/bin/env bash
# Undo a claim (burl's or the floor's): worktree, branch, workflow commit.
git -C "$d" worktree remove --force "$d/.worktrees/$branch" 2>/dev/null
git -C "$d" worktree remove --force "$d/.worktrees/floor" 2>/dev/null
git -C "$d" branch -q -D "$branch" floor 2>/dev/null
git -C "$d/.burl" reset -q --hard "$snap"
exit 0
EOF
	cat >"$W/claim-floor-$n.sh" <<EOF
#!/usr/bin/env bash
# git's floor for a claim: the task worktree on a new branch, plus one
# commit on the workflow worktree recording the move.
set -e
git -C "$d" worktree add -q -b floor "$d/.worktrees/floor" main
mv "$d/.burl/.workflow/READY/$file" "$d/.burl/.workflow/DOING/$file"
git -C "$d/.burl" add -A -- ".workflow/READY/$file" ".workflow/DOING/$file"
git -C "$d/.burl" commit -q --no-verify -m "claim TASK-001"
EOF
	chmod +x "$W/claim-reset-$n.sh" "$W/claim-floor-$n.sh"
	hf "claim_floor_$n" --prepare "$W/claim-reset-$n.sh" "$W/claim-floor-$n.sh"
	hf "claim_$n" --prepare "$W/claim-reset-$n.sh" "git -C $d burl claim TASK-001"
	"$W/claim-reset-$n.sh"
	local kb ratio
	kb=$(rss "claim $label" git -C "$d" burl claim TASK-001)
	"$W/claim-reset-$n.sh"
	ratio=$(calc "$(ms "claim_$n" median) / $(ms "claim_floor_$n" median)")
	row "claim TASK-001, $label" "$(cell "claim_$n")" "$(cell "claim_floor_$n")" "$(printf '%.2f×' "$ratio")" "—" \
		"≤ 1.5× floor" "$(yes_no "$ratio <= 1.5")" "$(mib "$kb")"
}

# ---------------------------------------------------------------- contention
bench_contention() {
	local tasks=200 workers=16 d=$W/contend
	say "contention: $workers claimers over $tasks tasks"
	cat >"$W/claimer.sh" <<'EOF'
#!/usr/bin/env bash
# One agent: claim the next task until none is left; exit 4 (lost a race,
# locked) means try again, exit 1 means nothing left.
cd "$1" || exit 9
while :; do
	out=$(git burl claim 2>/dev/null) && { echo "$out" | tail -n 1; continue; }
	rc=$?
	[ "$rc" = 4 ] && continue
	[ "$rc" = 1 ] && exit 0
	echo "claim exited $rc" >&2
	exit "$rc"
done
EOF
	chmod +x "$W/claimer.sh"
	local serial=() conc=() i r doubles=0
	for ((r = 0; r <= CONTENTION_RUNS; r++)); do
		for mode in serial concurrent; do
			# A fresh repository per run (a copy would share the original's
			# worktree metadata).
			rm -rf "$d"
			new_repo "$d"
			gen_tasks "$d" "$tasks" all-ready
			local t0 t1
			t0=$(date +%s%N)
			if [ "$mode" = serial ]; then
				"$W/claimer.sh" "$d" >"$W/claimed.txt"
			else
				local pids=()
				for ((i = 0; i < workers; i++)); do
					"$W/claimer.sh" "$d" >"$W/claimed-$i.txt" &
					pids+=($!)
				done
				for p in "${pids[@]}"; do wait "$p"; done
				cat "$W"/claimed-*.txt >"$W/claimed.txt"
			fi
			t1=$(date +%s%N)
			# Zero double claims: every task claimed exactly once, all in DOING.
			local lines uniq ndoing
			lines=$(wc -l <"$W/claimed.txt")
			uniq=$(sort -u "$W/claimed.txt" | wc -l)
			ndoing=$(find "$d/.burl/.workflow/DOING" -name 'TASK-*.md' | wc -l)
			if [ "$lines" != "$tasks" ] || [ "$uniq" != "$tasks" ] || [ "$ndoing" != "$tasks" ]; then
				doubles=$((doubles + 1))
				say "run $r $mode: $lines claims, $uniq distinct, $ndoing in DOING"
			fi
			[ "$r" = 0 ] && continue # warm-up
			if [ "$mode" = serial ]; then serial+=("$(((t1 - t0) / 1000000))"); else conc+=("$(((t1 - t0) / 1000000))"); fi
		done
	done
	local sm cm smin smax cmin cmax
	read -r sm smin smax < <(printf '%s\n' "${serial[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)], a[1], a[NR]}')
	read -r cm cmin cmax < <(printf '%s\n' "${conc[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)], a[1], a[NR]}')
	local ratio
	ratio=$(calc "$sm / $cm")
	rm -rf "$d"
	new_repo "$d"
	gen_tasks "$d" "$tasks" all-ready
	local kb
	kb=$(rss "claim next (200 READY)" git -C "$d" burl claim)
	row "$workers concurrent claimers over $tasks tasks (throughput)" \
		"$(printf '%.1f claims/s: %d ms (%d–%d)' "$(calc "$tasks * 1000 / $cm")" "$cm" "$cmin" "$cmax")" \
		"$(printf 'serial: %.1f claims/s: %d ms (%d–%d)' "$(calc "$tasks * 1000 / $sm")" "$sm" "$smin" "$smax")" \
		"$(printf '%.2f× serial' "$ratio")" "—" "≥ 0.7× serial; zero double claims" \
		"$(yes_no "$ratio >= 0.7 && $doubles == 0") ($doubles runs with a double claim)" "$(mib "$kb")"
}

# ---------------------------------------------------------------- gates
# gen_change WT FILES LINES: FILES new source files of LINES added lines
# each, free of stub patterns, committed on the worktree's branch.
gen_change() {
	local wt=$1 files=$2 lines=$3
	mkdir -p "$wt"/src/gen/m{000..099}
	awk -v files="$files" -v lines="$lines" -v dir="$wt/src/gen" 'BEGIN {
		for (f = 1; f <= files; f++) {
			p = sprintf("%s/m%03d/f%05d.go", dir, f % 100, f)
			for (l = 1; l <= lines; l++)
				printf "\tv%d_%d := computeTheValue(alpha%d, beta%d, \"a string literal of some length\") // note %d\n", f, l, l, f, l > p
			close(p)
		}
	}'
	git -C "$wt" add -A
	git -C "$wt" commit -q -m "generated change: $files files x $lines lines"
}

bench_gates() {
	local d=$W/gates
	say "gates: generating a 200,000-line change"
	new_repo "$d"
	(cd "$d" && git burl add "Big change" --affects-glob 'src/gen/**' >/dev/null && git burl add "Half change" --affects-glob 'src/gen/**' >/dev/null)
	local big small
	big=$(cd "$d" && git burl claim TASK-001 | tail -n 1)
	small=$(cd "$d" && git burl claim TASK-002 | tail -n 1)
	gen_change "$big" 2000 100
	gen_change "$small" 500 100
	local base
	base=$(git -C "$d" rev-parse main)
	local mb
	mb=$(git -C "$big" diff -U0 "$base..HEAD" | wc -c)
	hf gates_floor "git -C $big diff -U0 $base..HEAD"
	hf validate "git -C $d burl validate TASK-001"
	# The gates alone: what the pre-push hook runs for a pushed task branch.
	local branch
	branch=$(git -C "$big" symbolic-ref --short HEAD)
	printf 'refs/heads/%s %s refs/heads/%s %040d\n' "$branch" "$(git -C "$big" rev-parse HEAD)" "$branch" 0 >"$W/pushed-refs"
	cat >"$W/gates.sh" <<EOF
#!/usr/bin/env bash
# git burl hook pre-push reads the pushed refs on stdin, as from git.
cd "$big" && exec git burl hook pre-push origin "$W/nowhere.git" <"$W/pushed-refs"
EOF
	chmod +x "$W/gates.sh"
	local gates_ok=1
	if "$W/gates.sh" >/dev/null 2>&1; then hf gates "$W/gates.sh"; else gates_ok=0; fi
	local kb kb_small ratio peers=()
	kb=$(rss "validate 200k lines" git -C "$d" burl validate TASK-001)
	kb_small=$(rss "validate 50k lines" git -C "$d" burl validate TASK-002)
	# Peers scan the same range with the same stub rules.
	local pat
	if ensure_gitleaks; then
		{
			echo 'title = "burl stub rules"'
			local i=0
			while IFS= read -r pat; do
				i=$((i + 1))
				printf "[[rules]]\nid = \"stub-%d\"\nregex = '''%s'''\n" "$i" "$pat"
			done < <(stub_patterns "$d")
		} >"$W/gitleaks.toml"
		hf gitleaks "$GITLEAKS git --no-banner --log-level error --exit-code 0 -c $W/gitleaks.toml --log-opts=$base..HEAD $big"
		peers+=("gitleaks $GITLEAKS_VERSION git: $(cell gitleaks)")
	else
		peers+=("gitleaks: skipped (go install failed; see $W/gitleaks-install.log)")
	fi
	if ensure_git_secrets; then
		while IFS= read -r pat; do git -C "$big" secrets --add -- "$pat"; done < <(stub_patterns "$d")
		{
			echo '#!/usr/bin/env bash'
			echo '# git secrets has no range mode: scan the files the range touched, as they are at its head.'
			echo "cd '$big' && git diff --name-only -z $base..HEAD | xargs -0 git secrets --scan --"
		} >"$W/git-secrets.sh"
		chmod +x "$W/git-secrets.sh"
		hf git_secrets -i "$W/git-secrets.sh"
		peers+=("git secrets --scan (files of the range): $(cell git_secrets)")
	else
		peers+=("git-secrets: skipped (apt-get install git-secrets failed)")
	fi
	local peer_cell
	peer_cell=$(printf '%s; ' "${peers[@]}")
	local what
	what="2,000 files, 200,000 added lines ($(calc "int($mb / 1048576)") MiB of -U0 diff)"
	if [ "$gates_ok" = 1 ]; then
		ratio=$(calc "$(ms gates median) / $(ms gates_floor median)")
		row "stub + scope gates (\`git burl hook pre-push\`), $what" "$(cell gates)" "$(cell gates_floor) git diff -U0" \
			"$(printf '%.2f×' "$ratio")" "${peer_cell%; }" "≤ 1.2× floor" "$(yes_no "$ratio <= 1.2")" \
			"$(mib "$(rss "gates 200k lines" "$W/gates.sh")")"
	else
		row "stub + scope gates (\`git burl hook pre-push\`), $what" "—" "$(cell gates_floor)" "—" "—" "≤ 1.2× floor" \
			"skipped: \`git burl hook pre-push\` is not available" "—"
	fi
	ratio=$(calc "$(ms validate median) / $(ms gates_floor median)")
	row "validate (the gates + QA report + workflow commit), same change" "$(cell validate)" "$(cell gates_floor) git diff -U0" \
		"$(printf '%.2f×' "$ratio")" "—" "— (report only)" "—" "$(mib "$kb")"
	row "peak memory as the diff grows" "$(mib "$kb_small") at 50,000 lines → $(mib "$kb") at 200,000" "—" \
		"$(printf '%.2f×' "$(calc "$kb / $kb_small")")" "—" "flat" "$(yes_no "$kb <= $kb_small * 1.25")" "$(mib "$kb")"
	# The scanner's core throughput, from the Go benchmark beside it.
	local mbs
	mbs=$(cd "$here/../.." && { go test -run '^$' -bench '^BenchmarkScan$' -benchtime 20x ./pkg/gate/ 2>/dev/null || true; } |
		awk '/MB\/s/ {for (i = 1; i < NF; i++) if ($(i + 1) == "MB/s") print $i}' | head -n 1)
	row "stub scanner core (BenchmarkScan)" "${mbs:-?} MB/s" "—" "—" "—" "≥ 200 MB/s" "$(yes_no "${mbs:-0} >= 200")" "—"
}

# stub_patterns DIR: the workflow's stub_patterns, one per line.
stub_patterns() {
	awk '/^stub_patterns:/ {on = 1; next} on && /^  - / {sub(/^  - /, ""); print; next} on {exit}' "$1/.burl/.workflow/config.yaml"
}

# ---------------------------------------------------------------- hooks
bench_hooks() {
	if [ ! -x "$(git burl --exec-path 2>/dev/null)/git-burl-hook" ]; then
		local note="skipped: \`git burl hook\` is not built (the hooks branch has not landed)"
		row "commit-msg hook, non-task branch (added time)" "—" "same commit, no hook" "—" "—" "≤ 8 ms added" "$note" "—"
		row "commit-msg hook, task branch, 500-line commit (added time)" "—" "same commit, no hook" "—" "—" "≤ 12 ms added" "$note" "—"
		row "pre-push hook, 100 task-branch commits (added time)" "—" "same push, no hook" "—" "—" "≤ 30 ms added" "$note" "—"
		return
	fi
	local d=$W/hooks origin=$W/hooks-origin.git
	say "hooks: commit-msg and pre-push against the same commit/push with --no-verify"
	new_repo "$d"
	git init -q --bare "$origin"
	git -C "$d" remote add origin "$origin"
	git -C "$d" push -q origin main
	(cd "$d" && git burl hooks install >/dev/null && git burl add "Hooked" --affects-glob 'src/**' >/dev/null)
	local wt base branch
	wt=$(cd "$d" && git burl claim TASK-001 | tail -n 1)
	branch=$(git -C "$wt" symbolic-ref --short HEAD)
	base=$(git -C "$wt" rev-parse HEAD)

	hf hook_main "git -C $d commit -q --allow-empty -m x"
	hf nohook_main "git -C $d commit -q --allow-empty --no-verify -m x"
	hook_row "commit-msg hook, non-task branch (added time)" hook_main nohook_main 8 "same commit, --no-verify"

	# A clean 500-line change inside the task's scope, committed again and
	# again from the same staged state.
	awk 'BEGIN { print "package src"; for (i = 0; i < 500; i++) printf "var v%d = computeTheValue(%d, \"a string literal\")\n", i, i }' >"$wt/src/big.go"
	git -C "$wt" add src/big.go
	hf hook_task --prepare "git -C $wt reset -q --soft $base" "git -C $wt commit -q -m x"
	hf nohook_task --prepare "git -C $wt reset -q --soft $base" "git -C $wt commit -q --no-verify -m x"
	hook_row "commit-msg hook, task branch, 500-line commit (added time)" hook_task nohook_task 12 "same commit, --no-verify"

	# 100 commits on the task branch, pushed to a remote that lacks them.
	git -C "$wt" reset -q --hard "$base"
	local i
	for ((i = 1; i <= 100; i++)); do
		printf 'package src\n\nvar c%d = %d\n' "$i" "$i" >"$wt/src/c$i.go"
		git -C "$wt" add "src/c$i.go"
		git -C "$wt" commit -q --no-verify -m "commit $i"
	done
	cat >"$W/unpush.sh" <<EOF
#!/usr/bin/env bash
# Take the task branch off the remote again, so every push sends 100 commits.
git -C "$wt" push -q --no-verify origin ":$branch" 2>/dev/null
exit 0
EOF
	chmod +x "$W/unpush.sh"
	hf hook_push --prepare "$W/unpush.sh" "git -C $wt push -q origin $branch"
	hf nohook_push --prepare "$W/unpush.sh" "git -C $wt push -q --no-verify origin $branch"
	"$W/unpush.sh"
	hook_row "pre-push hook, 100 task-branch commits (added time)" hook_push nohook_push 30 "same push, --no-verify" \
		"$(rss "push with pre-push" git -C "$wt" push -q origin "$branch")"
}

# hook_row LABEL HOOKED PLAIN MAX_MS FLOOR_LABEL [RSS_KB]: the hook's cost is
# the difference of the medians.
hook_row() {
	local added kb=${6:-}
	added=$(calc "$(ms "$2" median) - $(ms "$3" median)")
	row "$1" "$(cell "$2")" "$(cell "$3") $5" "$(printf '%+.1f ms' "$added")" "—" "≤ $4 ms added" \
		"$(yes_no "$added <= $4")" "$(if [ -n "$kb" ]; then mib "$kb"; else echo —; fi)"
}

# ---------------------------------------------------------------- report
machine() {
	local cpu
	cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
	printf -- '- machine: %s cores, %s\n' "$(nproc)" "${cpu:-unknown CPU}"
	printf -- '- kernel: %s\n' "$(uname -srm)"
	printf -- '- %s; %s; burl %s\n' "$(go version 2>/dev/null | cut -d' ' -f3-)" "$(git --version)" "$(git-burl --version | awk '{print $3}')"
	printf -- '- %s; %s timed runs per row (%s for contention) after one warm-up; medians with (min–max)\n' \
		"$(hyperfine --version)" "$RUNS" "$CONTENTION_RUNS"
	# Other work on the machine shows in every number: say how busy it was.
	printf -- '- load average (1 min) at the start: %s, at the end: %s\n' "$load_start" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?)"
}

# BENCH_ONLY="status claim" runs a subset while working on one row.
only() { [ -z "${BENCH_ONLY:-}" ] || [[ " $BENCH_ONLY " == *" $1 "* ]]; }

# section NAME COMMAND...: one part of the bench, in a subshell so that a
# failure costs its rows (noted in the table), not the whole run.
section() {
	local name=$1 t0 rc
	shift
	only "$name" || return 0
	t0=$(date +%s)
	set +e
	(
		set -e
		"$@"
	)
	rc=$?
	set -e
	say "$name: $(($(date +%s) - t0)) s"
	if [ "$rc" != 0 ]; then
		row "$name" "failed (exit $rc): see the messages above" "—" "—" "—" "—" "❌ not measured" "—"
	fi
}

start=$(date +%s)
load_start=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo ?)
section dispatch bench_dispatch
section status bench_status 1000
section status bench_status 10000
section claim bench_claim 10 "small repo (10 tasks)"
section claim bench_claim 10000 "10,000-task workflow"
section contention bench_contention
section gates bench_gates
section hooks bench_hooks
IFS=$'\t' read -r peak_kb peak_what < <(sort -n -r "$W/rss.txt" | head -n 1) || true
peak_kb=${peak_kb:-0}
row "peak memory of every command above" "$(mib "$peak_kb") ($peak_what)" "—" "—" "—" "≤ 30 MiB" \
	"$(yes_no "$peak_kb <= 30 * 1024")" "$(mib "$peak_kb")"

{
	echo "# burl benchmarks"
	echo
	echo "Latest \`make bench\` ($(date -u +%Y-%m-%dT%H:%MZ), $(($(date +%s) - start)) s)."
	echo
	machine
	echo
	echo "| measurement | burl | floor | ratio | peers | target | met | peak RSS |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	cat "$W/rows.md"
} >"$W/table.md"
cat "$W/table.md"
# The table replaces the file's head; the sections after it ("## ...")
# record other measurements (forge, setup, history) and stay. A partial
# run (BENCH_ONLY) prints its rows and records nothing: a table of a few
# rows would stand as the latest full run.
if [ -n "${BENCH_ONLY:-}" ]; then
	exit 0
fi
{
	cat "$W/table.md"
	[ ! -f "$OUT" ] || awk '/^## / { keep = 1 } keep { if (!started) print ""; started = 1; print }' "$OUT"
} >"$W/results.md"
cp "$W/results.md" "$OUT"

