#!/usr/bin/env bats
# DESIGN §20, issue 32 items 3 and 4: a rejection does not burn the QA
# attempts in a second (a rejected head that comes back unchanged fails
# its run as unchanged, runs are numbered on, rounds back off), and an
# agent whose program is not installed is found before any task is
# claimed for it.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

teardown() {
	[ -z "${WATCH:-}" ] || kill -TERM "$WATCH" 2>/dev/null || true
}

# watch_bg: a watcher in the background, its stderr in $BATS_TEST_TMPDIR/w.log.
watch_bg() {
	git burl watch --interval 100ms 2>"$BATS_TEST_TMPDIR/w.log" &
	WATCH=$!
}

# stop_watch: SIGTERM to it, and wait until it is gone.
stop_watch() {
	kill -TERM "$WATCH"
	wait "$WATCH" || true
	WATCH=
}

# crash_waits: TASK-001 and an agent whose every run fails, under
# watch_bg, until the task's run 2 waits out its backoff.
crash_waits() {
	git burl add "Crashes" --affects-glob "src/**" >/dev/null
	agent crashy 'echo "run $BURL_ATTEMPT" >>'"$AGENTS"'/runs; exit 3'
	one_agent crashy
	watch_bg
	wait_until 20 grep -q 'TASK-001: run 2 waits' "$BATS_TEST_TMPDIR/w.log"
}

# breaking_build: build_command fails while a file of main says BROKEN.
breaking_build() {
	cat >"$BATS_TEST_TMPDIR/build.sh" <<'EOF'
#!/bin/sh
if git grep -q BROKEN; then echo "build: a file says BROKEN"; exit 1; fi
EOF
	chmod +x "$BATS_TEST_TMPDIR/build.sh"
	set_config build_command "$BATS_TEST_TMPDIR/build.sh"
}

# backoff_leased: the lease taken for a backoff is in the event log.
backoff_leased() {
	all_events | grep '"action":"lease"' | grep -q '"backoff_until":"'
}

# ms_between FILE A B: milliseconds from the line "A <ns>" to "B <ns>".
ms_between() {
	awk -v a="$2" -v b="$3" '$1 == a { x = $2 } $1 == b { y = $2 } END { printf "%d\n", (y - x) / 1000000 }' "$1"
}

@test "a rejected head that comes back unchanged is an unchanged run, not a QA round: run numbers grow, rounds back off, then BLOCKED" {
	watch_repo
	breaking_build
	set_config retry_backoff 1s
	git burl add "Broken build" --affects b.txt >/dev/null
	# The agent of issue 32: its work breaks the build, and after the
	# rejection it changes nothing.
	agent lazyfix 'echo "$BURL_ATTEMPT $(date +%s%N)" >>'"$AGENTS"'/runs; [ -e b.txt ] || echo BROKEN >b.txt'
	RETRIES=1 one_agent lazyfix
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_failure 2
	json=$output
	# BURL_ATTEMPT, the run records and what watch prints grow with
	# every run, across the rejection.
	[ "$(cut -d' ' -f1 "$AGENTS/runs" | paste -sd' ')" = "1 2 3" ]
	jq -e '[.runs[] | [.attempt, .result]] == [[1, "submitted"], [2, "unchanged"], [3, "unchanged"]]' <<<"$json"
	grep -q 'TASK-001: run 2 of bot: unchanged' <<<"$stderr"
	grep -q 'TASK-001: run 3 of bot: unchanged' <<<"$stderr"
	grep -q 'TASK-001: nothing changed since head [0-9a-f]* was rejected; not submitted again' <<<"$stderr"
	# One QA round, not three: one submit, one rejection.
	[ "$(field TASK-001 qa_attempts)" = 1 ]
	[ "$(grep -c '"action":"submit"' <(all_events))" = 1 ]
	[ "$(grep -c '"action":"reject"' <(all_events))" = 1 ]
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	re="^'?nothing changed since head [0-9a-f]+ was rejected; not submitted again \(2 run\(s\) of agent bot failed\)'?$"
	[[ $(field TASK-001 blocked_summary) =~ $re ]]
	# The next prompt said why, and the gates in the prompt say it first.
	grep -q 'fix what the rejection says' "$AGENTS/prompts/TASK-001-3.md"
	grep -q 'at a head a QA rejection already answered' "$AGENTS/prompts/TASK-001-2.md"
	# Rounds back off: 1s after the rejection, 2s after the first
	# unchanged run; the wait is said, and recorded on the lease.
	grep -q 'TASK-001: run 2 waits .*(retry_backoff 1s, doubled with each of its 1 failed round(s))' <<<"$stderr"
	grep -q 'TASK-001: run 3 waits 2s (retry_backoff 1s, doubled with each of its 2 failed round(s))' <<<"$stderr"
	[ "$(ms_between "$AGENTS/runs" 1 2)" -ge 1000 ]
	[ "$(ms_between "$AGENTS/runs" 2 3)" -ge 2000 ]
	backoff_leased
}

@test "retry_backoff is 30s by default: watch says the wait, holds the task under its lease, and SIGTERM releases it" {
	watch_repo
	# watch_repo's no_backoff taken back: the default holds.
	sed -i '/^retry_backoff:/d' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "config: retry_backoff as it comes"
	crash_waits
	grep -q 'TASK-001: run 2 waits 30s (retry_backoff 30s, doubled with each of its 1 failed round(s))' "$BATS_TEST_TMPDIR/w.log"
	[ "$(bucket_of TASK-001)" = DOING ]
	wait_until 5 backoff_leased
	stop_watch
	[ "$(cat "$AGENTS/runs")" = "run 1" ]
	[ "$(bucket_of TASK-001)" = READY ]
	grep -q 'TASK-001: released to READY (watch stopped' "$BATS_TEST_TMPDIR/w.log"
	# A bad value names the key.
	echo "retry_backoff: soon" >>.burl/.workflow/config.yaml
	git -C .burl commit -q -am "config: retry_backoff soon"
	run git burl status
	assert_output_contains 'retry_backoff: must be a duration such as 30s, 2m or 0s, not "soon"'
}

@test "a task waiting out its backoff can be held by a human: watch lets it go, and runs it no more" {
	watch_repo
	set_config retry_backoff 1h
	printf 'lease_seconds: 3\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -q -am "config: short leases"
	crash_waits
	grep -q 'TASK-001: run 2 waits 1h0m0s' "$BATS_TEST_TMPDIR/w.log"
	# (A renewal may hold the task's lock that instant: hold says so, exit 4.)
	wait_until 10 git burl hold TASK-001 --reason "mine now" >/dev/null 2>&1
	# Its lease renewal (every second here) finds it gone.
	wait_until 10 grep -q 'TASK-001: lost the task' "$BATS_TEST_TMPDIR/w.log"
	sleep 0.5
	stop_watch
	[ "$(cat "$AGENTS/runs")" = "run 1" ]
	[ "$(bucket_of TASK-001)" = READY ]
	[ -n "$(field TASK-001 held_reason)" ]
}

@test "a human's unblock ends the backoff; the runs go on numbering" {
	watch_repo
	set_config retry_backoff 1h
	git burl add "Crashes twice" --affects-glob 'src/**' >/dev/null
	agent twice 'echo "$BURL_ATTEMPT" >>'"$AGENTS"'/runs; [ "$BURL_ATTEMPT" -ge 3 ] || exit 3; mkdir -p src && echo ok >src/x.txt'
	RETRIES=0 one_agent twice
	run --separate-stderr git burl watch --once --interval 100ms
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	# The failures before an unblock count no more: no hour's wait.
	git burl unblock TASK-001 >/dev/null
	run --separate-stderr timeout 60 git burl watch --once --interval 100ms
	assert_failure 2
	[[ $stderr != *waits* ]]
	git burl unblock TASK-001 >/dev/null
	run --separate-stderr timeout 60 git burl watch --once --interval 100ms
	assert_success
	[[ $stderr != *waits* ]]
	[ "$(paste -sd' ' "$AGENTS/runs")" = "1 2 3" ]
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "an agent whose program is not installed is not claimed for: said once with the fix, the task stays READY, --once exits 2 naming it" {
	! command -v claude >/dev/null || skip "claude is installed here"
	watch_repo
	git burl add "Work" --affects-glob "src/**" >/dev/null
	agents_yaml "auto_approve: true
sandbox: none
agents:
  - {name: coder, preset: claude-code}
  - name: scripted
    command: [\"$AGENTS/not-written-yet\", \"{prompt_file}\"]"
	# A watcher left running for many rounds says it once per agent.
	watch_bg
	wait_until 10 grep -q 'agent scripted: not claiming' "$BATS_TEST_TMPDIR/w.log"
	sleep 1
	stop_watch
	log=$(cat "$BATS_TEST_TMPDIR/w.log")
	[ "$(grep -c 'agent coder: not claiming for it' <<<"$log")" = 1 ]
	grep -qF "agent coder: not claiming for it: its program claude is not on watch's PATH; install it (npm install -g @anthropic-ai/claude-code) or start watch with it on PATH" <<<"$log"
	[ "$(grep -c 'agent scripted: not claiming for it' <<<"$log")" = 1 ]
	grep -qF "agent scripted: not claiming for it: its program $AGENTS/not-written-yet cannot start: no such file" <<<"$log"
	# Nothing was claimed, so no task paid for it.
	[ "$(bucket_of TASK-001)" = READY ]
	[[ $(all_events) != *'"action":"claim"'* ]]
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_failure 2
	jq -e --arg s "$AGENTS/not-written-yet" '.ok == false and .runs == [] and [.cannot_start[] | [.agent, .program, .tasks]] == [["coder", "claude", ["TASK-001"]], ["scripted", $s, ["TASK-001"]]]' <<<"$output"
	run git burl watch --once --interval 100ms
	assert_failure 2
	assert_output_contains "agent coder could not start (claude): nothing was claimed for it; left in READY for it: TASK-001"
	[ "$(bucket_of TASK-001)" = READY ]
	# With no work left for it, such an agent is said and listed, and
	# watch --once succeeds.
	git burl hold TASK-001 --reason "not now" >/dev/null
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_success
	jq -e '.ok == true and (.cannot_start | length) == 2 and all(.cannot_start[]; .tasks == [])' <<<"$output"
}

@test "a program installed while watch runs is found at its next round: the agent's env: PATH, under bubblewrap" {
	need_bwrap
	[ ! -e /usr/bin/claude ] && [ ! -e /bin/claude ] || skip "claude is installed here"
	watch_repo
	git burl add "Work" --affects-glob 'src/**' >/dev/null
	tools="$BATS_TEST_TMPDIR/tools"
	mkdir -p "$tools"
	agents_yaml "auto_approve: true
sandbox: bwrap
agents:
  - name: coder
    preset: claude-code
    env: {PATH: \"$tools:/usr/bin:/bin\"}"
	watch_bg
	wait_until 10 grep -qF "agent coder: not claiming for it: its program claude is not on the PATH its env: sets ($tools:/usr/bin:/bin);" "$BATS_TEST_TMPDIR/w.log"
	[ "$(bucket_of TASK-001)" = READY ]
	printf '#!/bin/sh\nmkdir -p src && echo done >src/w.txt\n' >"$tools/claude"
	chmod +x "$tools/claude"
	wait_until 30 bucket_is TASK-001 DONE
	stop_watch
	grep -q 'agent coder: its program claude can start now; claiming for it' "$BATS_TEST_TMPDIR/w.log"
	[ "$(grep -c '"action":"run_start"' <(all_events))" = 1 ]
}
