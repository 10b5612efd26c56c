#!/usr/bin/env bats
# DESIGN §20: a run is shown running only while its watcher lives. After
# kill -9 of git-burl-watch mid-run, status, show, --json, doctor, the
# board (snapshot and live under tmux) and the HTML report (in headless
# chromium) say the run is lost and what to do; once a new watch has taken
# the task over and landed it, nothing shows the dead run running.

load helpers
load lifecycle
load watch
load board

pane_lacks() { ! pane_has "$1"; }

setup() {
	watch_repo
	printf 'lease_seconds: 900\nlease_grace: 60s\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -qam "long leases"
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	# The agent records its process group (it leads one) and naps $NAP s.
	agent napper 'echo $$ >"'"$AGENTS"'/agent-$BURL_ATTEMPT.pid"; sleep "${NAP:-0}"; mkdir -p src && echo "$WHO" >src/who.txt'
	SANDBOX=none one_agent napper
}

teardown() {
	tm kill-server 2>/dev/null || true
	local p
	for p in "$AGENTS"/agent-*.pid; do
		[ -s "$p" ] && kill -9 -- -"$(cat "$p")" 2>/dev/null
	done
	[ -z "${agit:-}" ] || kill -TERM "$agit" 2>/dev/null || true
}

bucket_is() { [ "$(bucket_of "$1")" = "$2" ]; }
no_locks() { [ -z "$(ls .burl/.workflow/locks/)" ]; }

# killed_mid_run: watch A runs the agent on TASK-001 and is killed with
# kill -9 between transitions; its agent goes too. WPID is the dead
# watcher's pid.
killed_mid_run() {
	WHO=A NAP=30 git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/a.log" 2>&1 &
	agit=$!
	wait_until 10 bucket_is TASK-001 DOING
	wait_until 10 run_started TASK-001
	wait_until 10 test -s "$AGENTS/agent-1.pid"
	wait_until 10 no_locks
	WPID=$(pgrep -P "$agit" -f git-burl-watch)
	[ -n "$WPID" ]
	kill -9 "$WPID" "$agit"
	wait "$agit" 2>/dev/null || true
	agit=
	kill -9 -- -"$(cat "$AGENTS/agent-1.pid")" 2>/dev/null || true
	bucket_is TASK-001 DOING
}

# taken_over: a new watch takes TASK-001 over and lands it.
taken_over() {
	run env WHO=B NAP=0 git burl watch --once --interval 100ms
	assert_success
	assert_output_contains "TASK-001: holder bot@"
	assert_output_contains "#$WPID is gone (process $WPID exited); released it (branch kept)"
	refute_output_contains "lease of"
	bucket_is TASK-001 DONE
	git show main:src/who.txt | grep -qx B
}

# report FILE: the HTML report, written and read back as headless
# chromium renders it (the DOM after parsing), no console error.
report() {
	git burl monitor --html "$BATS_TEST_TMPDIR/$1.html" >/dev/null
	run timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$BATS_TEST_TMPDIR/chrome" \
		--enable-logging=stderr --v=0 --dump-dom "file://$BATS_TEST_TMPDIR/$1.html"
	assert_success
	! grep -q 'CONSOLE' <<<"$output" || false
}

@test "kill -9 of watch mid-run: status, show, --json, doctor, the board and the report say lost and what to do; after a takeover nothing shows it running" {
	need chromium
	killed_mid_run
	gone="is gone (process $WPID exited)"

	run git burl status
	assert_success
	assert_output_contains "[lost: holder bot@"
	assert_output_contains "$gone]"
	assert_output_contains "next: git burl release TASK-001 (holder bot@"
	refute_output_contains "first commit"
	for o in "" --open; do
		run git burl status --json $o
		jq -e '.tasks[] | select(.id == "TASK-001") | .lost == true and .state == "lost" and .suggest == "git burl release TASK-001" and (.why | contains("is gone (process"))' <<<"$output"
	done
	run git burl show TASK-001
	assert_output_contains "lost:          holder bot@"
	assert_output_contains "next:          git burl release TASK-001"
	refute_output_contains "git burl submit"
	[ "$(git burl show TASK-001 --json | jq -r '.next | [.state, .suggest, .lost] | @tsv')" = "$(printf 'lost\tgit burl release TASK-001\ttrue')" ]
	run git burl doctor
	assert_failure 2
	assert_output_contains "holder_dead"
	assert_output_contains "$gone"
	assert_output_contains "git burl release TASK-001"
	run git burl doctor --json
	jq -e '.findings[] | select(.kind == "holder_dead") | .task == "TASK-001"' <<<"$output"

	run git burl monitor --once
	assert_output_contains "0 running · 1 lost"
	assert_output_contains "RUNNING 0 · LOST 1"
	assert_output_contains "TASK-001 bot#1 LOST after"
	grep -qE 'TASK-001 m S?X' <<<"$output"

	report lost
	dom=$output
	grep -qF '<li class="lost">TASK-001 · bot #1 · LOST at' <<<"$dom"
	grep -qF "$gone" <<<"$dom"
	timeline=$(sed -n '/<svg id="timeline-chart"/,/<\/svg>/p' <<<"$dom")
	grep -q '<rect class="lost"' <<<"$timeline"
	! grep -q '<rect class="open"' <<<"$timeline" || false

	taken_over
	run git burl status
	refute_output_contains "lost"
	run git burl status --json
	jq -e '[.tasks[] | select(.lost)] | length == 0' <<<"$output"
	run git burl doctor
	refute_output_contains "holder_dead"
	run git burl monitor --once
	assert_output_contains "RUNNING 0"
	refute_output_contains "LOST"
	refute_output_contains " lost"
	report landed
	dom=$output
	grep -qF '<p>No agent is running.</p>' <<<"$dom"
	! grep -q 'class="lost"' <<<"$dom" || false
	timeline=$(sed -n '/<svg id="timeline-chart"/,/<\/svg>/p' <<<"$dom")
	# A's claim ends at the takeover (given back), B's at its approve.
	! grep -q '<rect class="open"' <<<"$timeline" || false
	grep -q '<rect class="back"' <<<"$timeline"
	grep -q '<rect class="done"' <<<"$timeline"
}

@test "the live board under tmux: RUNNING while the watcher lives, LOST within seconds of its kill -9, neither once a new watch landed the task" {
	need tmux
	WHO=A NAP=30 git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/a.log" 2>&1 &
	agit=$!
	wait_until 10 test -s "$AGENTS/agent-1.pid"
	tm new-session -d -x 160 -y 40 -c "$REPO" "git burl monitor; sleep 60"
	wait_until 10 pane_has "RUNNING 1"
	pane_has "TASK-001 bot#1"
	wait_until 10 run_started TASK-001
	wait_until 10 no_locks
	WPID=$(pgrep -P "$agit" -f git-burl-watch)
	kill -9 "$WPID" "$agit"
	wait "$agit" 2>/dev/null || true
	agit=
	kill -9 -- -"$(cat "$AGENTS/agent-1.pid")" 2>/dev/null || true
	# No file changes when a process dies: the board finds out by itself.
	wait_until 5 pane_has "RUNNING 0 · LOST 1"
	pane_has "1 lost"
	pane_has "TASK-001 bot#1 LOST after"
	pane_has "is gone (process $WPID exited)"
	taken_over
	wait_until 5 pane_has "DONE 1"
	wait_until 5 pane_lacks "LOST"
	pane_has "RUNNING 0"
	pane_lacks "TASK-001 bot#"
}

@test "what status suggests for a lost run is accepted: release gives the task back, and nothing shows the dead run after" {
	killed_mid_run
	[ "$(suggest_of TASK-001)" = "git burl release TASK-001" ]
	follow TASK-001
	bucket_is TASK-001 READY
	[ "$(state_of TASK-001)" = claimable ]
	run git burl monitor --once
	assert_output_contains "RUNNING 0"
	refute_output_contains "LOST"
	run git burl doctor
	refute_output_contains "holder_dead"
}
