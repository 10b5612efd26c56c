#!/usr/bin/env bats
# git burl monitor (issue 12): the live board under tmux, the plain
# snapshot, the HTML report (by its contents and in a real headless
# browser), and the TUI library linked into git-burl-monitor only.

load helpers
load lifecycle
load watch
load board

teardown() {
	tm kill-server 2>/dev/null || true
}

# board_repo: three READY tasks (one waiting on another), one DOING.
board_repo() {
	new_burl_repo
	set_config max_parallel 0
	git burl add "Parse the config" --affects src/a.go --priority high >/dev/null 2>&1
	git burl add "Use the config" --affects src/b.go --depends-on TASK-001 >/dev/null 2>&1
	git burl add "$(printf 'Evil \033[2J title')" --affects src/c.go >/dev/null 2>&1
	git burl claim TASK-001 >/dev/null 2>&1
}

# start_board W H: the live board in a detached tmux pane of W×H; its exit
# code lands in $BATS_TEST_TMPDIR/rc.
start_board() {
	rm -f "$BATS_TEST_TMPDIR/rc"
	tm new-session -d -x "$1" -y "$2" -c "$REPO" \
		"git burl monitor; echo \$? >'$BATS_TEST_TMPDIR/rc'; sleep 60"
	wait_until 10 pane_has "TASK-001"
}

exited() { [ -s "$BATS_TEST_TMPDIR/rc" ]; }

@test "the live board: a task added from another shell appears within 2 s; arrows, Enter, q exits 0" {
	need tmux
	board_repo
	start_board 120 40
	pane_has "READY 2"
	pane_has "DOING 1"
	pane_has "@tester@bats"
	# Control characters of a title are shown escaped, never sent.
	pane_has 'Evil \x1b[2J'
	start=$(date +%s%N)
	git burl add "Added from another shell" --affects src/d.go >/dev/null 2>&1
	wait_until 2 pane_has "TASK-004"
	echo "redraw after $((($(date +%s%N) - start) / 1000000)) ms" >&3
	pane_has "READY 3"
	pane_has "add TASK-004"
	# The first READY card is selected: Enter shows its file, Escape
	# returns, Down selects the next one.
	tm send-keys -t 0 Enter
	wait_until 5 pane_has "title: Use the config"
	tm send-keys -t 0 Escape
	wait_until 5 pane_has "READY 3"
	tm send-keys -t 0 Down Enter
	wait_until 5 pane_has "id: TASK-003"
	tm send-keys -t 0 Escape
	wait_until 5 pane_has "READY 3"
	tm send-keys -t 0 q
	wait_until 5 exited
	[ "$(cat "$BATS_TEST_TMPDIR/rc")" = 0 ]
}

@test "the live board fits 80×24 and follows transitions in other buckets" {
	need tmux
	board_repo
	start_board 80 24
	[ "$(pane | wc -l)" -le 24 ]
	# Widths in characters, not bytes: the board draws · ▌ ↓ ….
	export LC_ALL=C.UTF-8
	while IFS= read -r line; do
		[ "${#line}" -le 80 ] || { echo "too wide: $line" >&2; false; }
	done < <(pane)
	pane_has "BLOCKED 0"
	pane_has "RUNNING 0"
	pane_has "EVENTS"
	pane_has "q quit"
	git burl release TASK-001 >/dev/null 2>&1
	wait_until 2 pane_has "DOING 0"
	git burl block TASK-003 --reason "waits for a human" >/dev/null 2>&1
	wait_until 2 pane_has "BLOCKED 1"
	tm send-keys -t 0 q
	wait_until 5 exited
	[ "$(cat "$BATS_TEST_TMPDIR/rc")" = 0 ]
}

board_gone() { ! pane_has "TASK-001"; }

@test "NO_COLOR: the live board draws no colour (and does without it)" {
	need tmux
	board_repo
	# The colour library takes a set CI for "not a terminal" (as the man
	# page says): CI runs this suite with CI=true, a user's shell has none.
	tm new-session -d -x 100 -y 30 -c "$REPO" "env -u CI git burl monitor; sleep 60"
	wait_until 10 pane_has "TASK-001"
	# -e keeps the escape sequences: headings are bright blue (SGR 94).
	run tm capture-pane -e -p -t 0
	assert_output_contains $'\e[94m'
	tm send-keys -t 0 q
	wait_until 5 board_gone
	# The same pane, a new command: a second server on the same socket can
	# race the first one's exit.
	tm respawn-pane -k -t 0 -c "$REPO" "NO_COLOR=1 git burl monitor; sleep 60"
	wait_until 10 pane_has "TASK-001"
	# No colour at all; the selected card still shows by its bar.
	run tm capture-pane -e -p -t 0
	assert_output_contains "▌TASK-002 m W"
	refute_output_contains $'\e[9'
	refute_output_contains $'\e[3'
	tm send-keys -t 0 q
}

@test "not a terminal: one plain snapshot, no escape sequence, exit 0; --once too" {
	board_repo
	run git burl monitor
	assert_success
	assert_output_contains "READY 2"
	assert_output_contains "DOING 1"
	assert_output_contains "TASK-002 m"
	assert_output_contains "TASK-001 h"
	assert_output_contains "@tester@bats"
	assert_output_contains 'Evil \x1b[2J'
	assert_output_contains "claim TASK-001 tester@bats"
	# TASK-002 waits on TASK-001: marker W.
	grep -q 'TASK-002 m W' <<<"$output"
	! grep -q $'\e' <<<"$output" || false
	COLUMNS=80 run git burl monitor --once
	assert_success
	export LC_ALL=C.UTF-8
	while IFS= read -r line; do
		[ "${#line}" -le 80 ] || { echo "too wide: $line" >&2; false; }
	done <<<"$output"
	run git burl monitor extra
	assert_failure 1
}

@test "markers: lock, lease expired, and a running agent with its last log line" {
	watch_repo
	git burl add "Slow work" --affects src/slow.go >/dev/null 2>&1
	agent slow 'echo "compiling step 7 of 9"; sleep 30'
	one_agent slow
	git burl watch >"$BATS_TEST_TMPDIR/watch.out" 2>&1 &
	wpid=$!
	wait_until 20 bash -c 'git burl monitor | grep -q "compiling step 7 of 9"'
	run git burl monitor
	assert_output_contains "RUNNING 1"
	grep -qE 'TASK-001 bot#1 [0-9]+s  compiling step 7 of 9' <<<"$output"
	kill -TERM "$wpid"
	wait "$wpid" || true
	# A lease in the past marks its DOING task E; a held task lock marks it L.
	git burl claim TASK-001 >/dev/null 2>&1
	f=$(ls .burl/.workflow/DOING/TASK-001-*.md)
	awk '/^lease_expires:/ { next } /^assigned_to:/ { print; print "lease_expires: 2020-01-01T00:00:00Z"; next } { print }' "$f" >"$f.new" && mv "$f.new" "$f"
	git -C .burl commit -q -am "lease in the past"
	printf '{"owner":"x","host":"h","pid":1,"created_at":"2020-01-01T00:00:00Z","action":"claim"}' >.burl/.workflow/locks/TASK-001.lock
	run git burl monitor
	assert_success
	grep -qE 'TASK-001 m L?S?E' <<<"$output"
	grep -q 'TASK-001 m L' <<<"$output"
}

@test "predicted conflicts are marked C on both tasks" {
	board_repo
	printf 'one\n' >src/x.go && git add src/x.go && git commit -q -m x
	for t in A B; do git burl add "Edit x $t" --affects src/x.go >/dev/null 2>&1; done
	set_config conflict_policy ignore
	for id in TASK-004 TASK-005; do
		wt=$(claim_wt "$id")
		(cd "$wt" && commit_file src/x.go "$id" "$id edits x")
	done
	run git burl monitor
	assert_success
	grep -qE 'TASK-004 m [LSE]*C' <<<"$output"
	grep -qE 'TASK-005 m [LSE]*C' <<<"$output"
}

@test "--html: one self-contained page with board, timeline, dependency graph and figures" {
	board_repo
	git burl release TASK-001 >/dev/null 2>&1
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file src/a.go 'package src' "parse the config")
	git burl submit TASK-001 >/dev/null 2>&1
	git burl approve TASK-001 >/dev/null 2>&1
	git burl add '"><script>alert(1)</script><svg onload=x>' --affects src/e.go --depends-on TASK-002 >/dev/null 2>&1
	run git burl monitor --html "$BATS_TEST_TMPDIR/report.html"
	assert_success
	page=$(cat "$BATS_TEST_TMPDIR/report.html")
	grep -q '<h2 id="board">' <<<"$page"
	grep -q '<h2 id="timeline">' <<<"$page"
	grep -q '<h2 id="deps">' <<<"$page"
	grep -q 'Cycle time (first claim → DONE)' <<<"$page"
	[ "$(grep -c '<svg' <<<"$page")" -ge 3 ]
	# The timeline has a DONE bar on tester@bats' lane; the graph has the
	# chain 1 → 2 → 5, with none waiting (TASK-001 is DONE... TASK-002 is
	# not, so TASK-005 waits).
	grep -q '<rect class="done"' <<<"$page"
	grep -q '<text x="4" y="[0-9]*" dy="14">tester@bats</text>' <<<"$page"
	grep -q 'class="node node-READY waiting"' <<<"$page"
	grep -q '1 READY task(s) wait on unfinished work' <<<"$page"
	# Task data is escaped text, never markup; nothing is fetched.
	! grep -q '<script>' <<<"$page" || false
	grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' <<<"$page"
	! grep -qE '(src|href)=' <<<"$page" || false
	! grep -qE 'https?://' <<<"$page" || false
	! grep -q $'\e' <<<"$page" || false
}

@test "--html renders in headless chromium without console errors" {
	need chromium
	board_repo
	git burl monitor --html "$BATS_TEST_TMPDIR/report.html" >/dev/null
	prof="$BATS_TEST_TMPDIR/chrome"
	run timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 --window-size=1280,1400 \
		--screenshot="$BATS_TEST_TMPDIR/report.png" "file://$BATS_TEST_TMPDIR/report.html"
	[ -s "$BATS_TEST_TMPDIR/report.png" ]
	# Console messages of the page are logged as CONSOLE lines.
	! grep -q 'CONSOLE' <<<"$output" || false
	run timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$prof" \
		--dump-dom "file://$BATS_TEST_TMPDIR/report.html"
	assert_success
	assert_output_contains 'Parse the config'
	assert_output_contains '<svg'
	# The screenshot is a real picture, not a blank page: PNG magic and
	# more than a few KiB of pixels.
	[ "$(head -c 8 "$BATS_TEST_TMPDIR/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/report.png")" -gt 20000 ]
}

@test "--html in chromium: the approved-per-day chart has its y axis (0 and the max), a baseline and dates; the timeline has UTC time ticks" {
	need chromium
	export LC_ALL=C
	board_repo
	# Two tasks approved today: the chart's maximum is 2.
	git burl release TASK-001 >/dev/null 2>&1
	for t in TASK-001:a TASK-003:c; do
		submitted "${t%%:*}" "src/${t#*:}.go" 'package src' >/dev/null
		git burl approve "${t%%:*}" >/dev/null 2>&1
	done
	[ "$(bucket_of TASK-003)" = DONE ]
	# A claim and release two hours ago, pushed by another machine (as the
	# log's own lines are), so the timeline spans two hours: its start is
	# that claim, to the minute.
	t0=$(($(date -u +%s) / 60 * 60 - 7200))
	shard=$(find .burl/.workflow/events -name '*.ndjson' | sort | tail -n 1)
	for a in claim:0 release:1800; do
		printf '{"ts":"%s","task":"TASK-002","action":"%s","actor":"earlier@vm","details":{"reason":"earlier attempt"}}\n' \
			"$(date -u -d "@$((t0 + ${a#*:}))" +%Y-%m-%dT%H:%M:%SZ)" "${a%%:*}" >>"$shard"
	done
	git -C .burl commit -qam "an earlier attempt, from another machine"
	git burl monitor --html "$BATS_TEST_TMPDIR/report.html" >/dev/null
	prof="$BATS_TEST_TMPDIR/chrome"
	run timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 --dump-dom "file://$BATS_TEST_TMPDIR/report.html"
	assert_success
	! grep -q 'CONSOLE' <<<"$output" || false
	dom=$output
	chart=$(sed -n '/<svg id="throughput"/,/<\/svg>/p' <<<"$dom")
	timeline=$(sed -n '/<svg id="timeline-chart"/,/<\/svg>/p' <<<"$dom")
	# The y axis: 0 at the baseline, the maximum (2) at the top.
	grep -qE '<text class="y-label"[^>]*>0</text>' <<<"$chart"
	grep -qE '<text class="y-label"[^>]*>2</text>' <<<"$chart"
	grep -q '<line class="baseline"' <<<"$chart"
	grep -qF '<title>'"$(date -u +%F)"': 2 approved</title>' <<<"$chart"
	# Dates under the first bar (29 days ago) and the last (today), and a
	# few between: seven in all over 30 days.
	dates=$(grep -oE '<text class="date"[^>]*>[^<]*</text>' <<<"$chart" | sed 's/.*>\([^<]*\)<.*/\1/')
	echo "dates: $(tr '\n' '|' <<<"$dates")" >&3
	[ "$(head -n 1 <<<"$dates")" = "$(date -u -d '29 days ago' '+%b %-d')" ]
	[ "$(tail -n 1 <<<"$dates")" = "$(date -u '+%b %-d')" ]
	[ "$(wc -l <<<"$dates")" -ge 4 ]
	# The timeline: its start (the earlier claim, in UTC), its end (now),
	# and round times between.
	ticks=$(grep -oE '<text class="tick"[^>]*>[^<]*</text>' <<<"$timeline")
	echo "ticks: $(sed 's/.*>\([^<]*\)<.*/\1/' <<<"$ticks" | tr '\n' '|')" >&3
	start=$(date -u -d "@$t0" +%H:%M)
	[ "$(date -u -d "@$t0" +%F)" = "$(date -u +%F)" ] || start="$(date -u -d "@$t0" '+%b %-d') $start"
	grep -qF "text-anchor=\"start\">$start</text>" <<<"$ticks"
	grep -qE 'text-anchor="end">([A-Z][a-z]{2} [0-9]{1,2} )?[0-9]{2}:[0-9]{2}</text>' <<<"$ticks"
	[ "$(grep -cE 'text-anchor="middle">([0-9]{2}:[0-9]{2}|[A-Z][a-z]{2} [0-9]{1,2})</text>' <<<"$ticks")" -ge 3 ]
	# What a person sees: a real picture of the page.
	run timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$prof" \
		--window-size=1280,1400 --screenshot="$BATS_TEST_TMPDIR/axes.png" "file://$BATS_TEST_TMPDIR/report.html"
	[ -s "$BATS_TEST_TMPDIR/axes.png" ]
	[ "$(head -c 8 "$BATS_TEST_TMPDIR/axes.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/axes.png")" -gt 20000 ]
	[ -z "${BURL_KEEP_SCREENSHOT:-}" ] || cp "$BATS_TEST_TMPDIR/axes.png" "$BURL_KEEP_SCREENSHOT"
}

@test "the TUI library is linked into git-burl-monitor only" {
	dir=$(git burl --exec-path)
	for b in "$dir"/git-burl-*; do
		case $b in */git-burl-monitor) continue ;; esac
		run go version -m "$b"
		refute_output_contains "bubbletea"
		refute_output_contains "lipgloss"
	done
	run go version -m "$dir/git-burl-monitor"
	assert_output_contains "github.com/charmbracelet/bubbletea"
	[ "$(stat -c %s "$dir/git-burl-hook")" -lt "$(stat -c %s "$dir/git-burl-monitor")" ]
	[ "$(stat -c %s "$(command -v git-burl)")" -lt "$(stat -c %s "$dir/git-burl-hook")" ]
}

@test "a run log named in a pushed event is read only under the logs directory: a path out of it shows nothing" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	echo "hunter2-secret-line" >"$BATS_TEST_TMPDIR/credentials"
	logs=.burl/.workflow/logs/TASK-001
	mkdir -p "$logs"
	echo "compiling the good run" >"$logs/good.log"
	ln -s "$BATS_TEST_TMPDIR/credentials" "$logs/link.log"
	shard=$(find .burl/.workflow/events -name '*.ndjson' | sort | tail -n 1)
	now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	outside=$(realpath --relative-to="$REPO" "$BATS_TEST_TMPDIR/credentials")
	for a in 1:"$outside" 2:.burl/.workflow/logs/TASK-001/link.log 3:.burl/.workflow/logs/TASK-001/good.log; do
		printf '{"ts":"%s","task":"TASK-001","action":"run_start","actor":"w@h","details":{"agent":"a%s","attempt":1,"log":"%s"}}\n' "$now" "${a%%:*}" "${a#*:}" >>"$shard"
	done
	git -C .burl commit -qam "events naming logs"
	run git burl monitor --html "$BATS_TEST_TMPDIR/report.html"
	assert_success
	! grep -q hunter2 "$BATS_TEST_TMPDIR/report.html" || false
	grep -q "compiling the good run" "$BATS_TEST_TMPDIR/report.html"
	run git burl monitor --once
	! grep -q hunter2 <<<"$output" || false
}

@test "--html: the report is readable by others as a new file is (umask), and recent events are newest first" {
	new_burl_repo
	git burl add "First" >/dev/null 2>&1
	git burl add "Second" >/dev/null 2>&1
	git burl block TASK-002 --reason "the newest event" >/dev/null
	(umask 022 && git burl monitor --html "$BATS_TEST_TMPDIR/report.html" >/dev/null)
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/report.html")" = 644 ]
	events=$(sed -n '/id="events"/,/<\/ol>/p' "$BATS_TEST_TMPDIR/report.html" | grep -o '<li>[^<]*' | head -n 2)
	[[ "$(head -n 1 <<<"$events")" == *" block TASK-002 "* ]]
}

@test "--html: a BLOCKED card shows its whole reason, and a READY one waiting on it says that task is BLOCKED" {
	new_burl_repo
	git burl add "Base" >/dev/null 2>&1
	git burl add "On top" --depends-on TASK-001 >/dev/null 2>&1
	git burl block TASK-001 --reason "waits for the vendor's API key, see ops ticket 4711" >/dev/null
	git burl monitor --html "$BATS_TEST_TMPDIR/report.html" >/dev/null
	grep -q "blocked: waits for the vendor&#39;s API key, see ops ticket 4711" "$BATS_TEST_TMPDIR/report.html"
	grep -q "waits for TASK-001 (TASK-001 BLOCKED: a human must act)" "$BATS_TEST_TMPDIR/report.html"
}

@test "the live board's clock and ages move on while nothing changes" {
	need tmux
	board_repo
	start_board 120 40
	clock() { pane | grep -o '[0-9][0-9]:[0-9][0-9]:[0-9][0-9] UTC' | head -n 1; }
	first=$(clock)
	[ -n "$first" ]
	sleep 2.2
	[ "$(clock)" != "$first" ]
	tm send-keys -t 0 q
	wait_until 5 exited
}

@test "Enter on a BLOCKED task shows its whole reason, wrapped to the screen" {
	need tmux
	new_burl_repo
	git burl add "Stuck" >/dev/null 2>&1
	git burl block TASK-001 --reason "waits for the vendor: $(printf 'word%.0s ' {1..30})THE-END" >/dev/null
	start_board 80 24
	# The BLOCKED column is the fifth.
	# BLOCKED is the last column: left of the first.
	tm send-keys -t 0 Left
	sleep 0.3
	tm send-keys -t 0 Enter
	wait_until 5 pane_has "id: TASK-001"
	# The reason is below the first screen of the file.
	for _ in $(seq 20); do tm send-keys -t 0 Down; done
	wait_until 5 pane_has "blocked_reason:"
	wait_until 5 pane_has "THE-END"
	tm send-keys -t 0 q
}

@test "the live board marks B! a READY task whose dependency is BLOCKED (W one waiting on work); Enter names it and says a human must act" {
	need tmux
	new_burl_repo
	git burl add "Base" >/dev/null 2>&1
	git burl add "On top" --depends-on TASK-001 >/dev/null 2>&1
	git burl add "Other work" >/dev/null 2>&1
	git burl add "After other work" --depends-on TASK-003 >/dev/null 2>&1
	git burl block TASK-001 --reason "needs the vendor's API key" >/dev/null
	run git burl monitor --once
	assert_success
	grep -q 'TASK-002 m B!' <<<"$output"
	grep -q 'TASK-004 m W' <<<"$output"
	start_board 120 30
	wait_until 5 pane_has "TASK-002 m B!"
	pane_has "TASK-004 m W"
	# TASK-002 is READY's first card: Enter says which dependency is
	# BLOCKED, why, and what to run.
	tm send-keys -t 0 Enter
	wait_until 5 pane_has "B! waits for TASK-001, which is BLOCKED: a human must act"
	pane_has "TASK-001 blocked: needs the vendor's API key"
	pane_has "git burl show TASK-001 says why"
	pane_has "id: TASK-002"
	tm send-keys -t 0 Escape
	wait_until 5 pane_has "READY 3"
	# Unblocked from another shell: back to ordinary waiting.
	git burl unblock TASK-001 >/dev/null 2>&1
	wait_until 2 pane_has "TASK-002 m W"
	! pane_has "B!" || false
	tm send-keys -t 0 q
	wait_until 5 exited
	[ "$(cat "$BATS_TEST_TMPDIR/rc")" = 0 ]
}

# with_pr ID N URL: give a submitted QA task the pull request #N that
# approve with landing: pr records (pr_url, pr_number, pr_head and a
# pr_open event), by hand and committed on the workflow branch, as a
# human's edit is (edit_task): no forge is needed to draw it, and the URL
# is whatever someone who can push the workflow branch wrote.
with_pr() {
	local f head shard
	f=$(task_file "$1") || return 1
	head=$(field "$1" submitted_sha)
	awk -v n="$2" -v url="$3" -v head="$head" '{ print } /^submitted_sha:/ { print "pr_url: " url; print "pr_number: " n; print "pr_head: " head }' "$f" >"$f.new" && mv "$f.new" "$f"
	shard=$(find "$REPO/.burl/.workflow/events" -name '*.ndjson' | sort | tail -n 1)
	jq -cn --arg id "$1" --argjson n "$2" --arg url "$3" --arg head "$head" --arg ts "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		'{ts: $ts, task: $id, action: "pr_open", actor: "tester@bats", details: {url: $url, number: $n, head: $head, base: $head}}' >>"$shard"
	git -C "$REPO/.burl" commit -qam "pull request #$2 of $1, by hand"
}

# pr_repo: TASK-001 in QA with pull request #7 open at an http URL.
pr_repo() {
	new_burl_repo
	git burl add "Land through the forge" --affects src/pr.go >/dev/null 2>&1
	submitted TASK-001 src/pr.go 'package src' >/dev/null
	with_pr TASK-001 7 http://127.0.0.1:1/burl/demo/pulls/7
}

@test "landing: pr: the board marks a QA task's open pull request, Enter shows its state and URL, the feed its event" {
	need tmux
	pr_repo
	run git burl monitor --once
	assert_success
	assert_output_contains "PR #7"
	assert_output_contains "TASK-001 PR #7 opened · tester@bats"
	start_board 80 24
	wait_until 5 pane_has "PR #7 @"
	pane_has "QA 1"
	pane_has "TASK-001 PR #7 opened"
	# QA is the third column.
	tm send-keys -t 0 Right Right Enter
	wait_until 5 pane_has "PR #7 open: http://127.0.0.1:1/burl/demo/pulls/7"
	pane_has "id: TASK-001"
	tm send-keys -t 0 q
	wait_until 5 exited
	[ "$(cat "$BATS_TEST_TMPDIR/rc")" = 0 ]
}

@test "landing: pr: the HTML report links an http pull request in chromium; a javascript: pr_url is only text" {
	need chromium
	pr_repo
	git burl add "Pushed by someone else" --affects src/x.go >/dev/null 2>&1
	submitted TASK-002 src/x.go 'package src' >/dev/null
	with_pr TASK-002 8 'javascript:alert(document.domain)//"><script>alert(2)</script>'
	run git burl monitor --html "$BATS_TEST_TMPDIR/report.html"
	assert_success
	page=$(cat "$BATS_TEST_TMPDIR/report.html")
	grep -qF '<a href="http://127.0.0.1:1/burl/demo/pulls/7" rel="noopener noreferrer">PR #7</a> open' <<<"$page"
	[ "$(grep -o 'href=' <<<"$page" | wc -l)" = 1 ]
	! grep -q '<script>' <<<"$page" || false
	grep -qF 'PR #8 (javascript:alert(document.domain)//&#34;&gt;&lt;script&gt;alert(2)&lt;/script&gt;) open' <<<"$page"
	grep -qF 'TASK-002 PR #8 opened · tester@bats' <<<"$page"
	# What the browser makes of it: one link, to the pull request.
	prof="$BATS_TEST_TMPDIR/chrome"
	run timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 --dump-dom "file://$BATS_TEST_TMPDIR/report.html"
	assert_success
	! grep -q 'CONSOLE' <<<"$output" || false
	assert_output_contains '<a href="http://127.0.0.1:1/burl/demo/pulls/7" rel="noopener noreferrer">PR #7</a> open'
	[ "$(grep -o '<a ' <<<"$output" | wc -l)" = 1 ]
	refute_output_contains 'href="javascript'
	refute_output_contains '<script>'
	assert_output_contains 'PR #8 (javascript:alert(document.domain)//"&gt;&lt;script&gt;alert(2)&lt;/script&gt;) open'
}
