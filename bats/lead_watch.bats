#!/usr/bin/env bats
# DESIGN §25 (issue 40 items 1-3): a release or a landing leaves no lease
# behind, so a task claimed by hand afterwards is the human's on every
# surface and no watcher takes it over; `unchanged` is judged by content,
# also after the queue rebased the branch; what watch prints about a task
# is where it really went.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

teardown() {
	[ -z "${WATCH:-}" ] || kill -TERM "$WATCH" 2>/dev/null || true
}

# lease_fields ID: the task's lease lines that hold a value.
lease_fields() {
	grep -E '^lease_(expires|holder): *[^ n]' "$(task_file "$1")" || true
}

# breaking_build: build_command fails while a file says BROKEN.
breaking_build() {
	cat >"$BATS_TEST_TMPDIR/build.sh" <<'EOF'
#!/bin/sh
if git grep -q BROKEN; then echo "build: a file says BROKEN"; exit 1; fi
EOF
	chmod +x "$BATS_TEST_TMPDIR/build.sh"
	set_config build_command "$BATS_TEST_TMPDIR/build.sh"
}

@test "a task watch released on Ctrl-C keeps no lease; claimed by hand, it is the human's on status, show, status --json --open and doctor, and no watch takes it over when the old lease would have expired" {
	watch_repo
	printf 'lease_seconds: 6\nlease_grace: 0s\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -qam "short leases"
	git burl add "Long work" --affects-glob 'src/**' >/dev/null
	agent slow 'sleep 60'
	one_agent slow
	git-burl watch --interval 100ms 2>"$BATS_TEST_TMPDIR/w.log" &
	WATCH=$!
	wait_until 20 bucket_is TASK-001 DOING
	wait_until 20 run_started TASK-001
	kill -INT "$WATCH"
	wait "$WATCH" || true
	WATCH=
	[ "$(bucket_of TASK-001)" = READY ]
	# The release cleared every lease field.
	[ -z "$(lease_fields TASK-001)" ] || { lease_fields TASK-001; false; }
	# A human claims it while the old lease would still hold.
	claim_wt TASK-001 >/dev/null
	[ -z "$(lease_fields TASK-001)" ]
	run git burl show TASK-001
	assert_success
	refute_output_contains "runs under git burl watch"
	for open in "" 1; do
		[ "$(OPEN=$open state_of TASK-001)" != running ]
		! OPEN=$open waits_of TASK-001 | grep -q "git burl watch" || false
	done
	run git burl status
	refute_output_contains "runs under git burl watch"
	run git burl doctor
	assert_success
	refute_output_contains "TASK-001"
	# Past the old lease, a watcher finds the task claimed by hand and
	# leaves it be.
	sleep 7
	agent quick 'echo done >src/x.txt'
	one_agent quick
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DOING ]
	[ "$(field TASK-001 assigned_to)" = tester@bats ]
	! all_events | grep -q '"action":"lease_expired"' || false
}

@test "a task watch lands keeps no lease in DONE" {
	watch_repo
	git burl add "Quick" --affects-glob 'src/**' >/dev/null
	agent quick 'echo done >src/x.txt'
	one_agent quick
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	all_events | grep '"action":"run_start"' | grep -q '"lease_expires"'
	[ -z "$(lease_fields TASK-001)" ] || { lease_fields TASK-001; false; }
}

@test "unchanged is judged by content: after the queue rebased a rejected branch onto a newer main, a run that adds nothing is unchanged, not a second QA round" {
	watch_repo
	breaking_build
	git burl add "Good" --priority high --affects f1.txt >/dev/null
	git burl add "Breaks" --affects f2.txt >/dev/null
	# Both submitted from the same main: the queue stacks TASK-002 on
	# TASK-001, bisects the failing build to it and rejects it, its branch
	# left rebased onto the main TASK-001 moved.
	submitted TASK-001 f1.txt "good" >/dev/null
	submitted TASK-002 f2.txt "BROKEN" >/dev/null
	rejected=$(field TASK-002 submitted_sha)
	# The agent changes nothing.
	agent idle 'true'
	RETRIES=1 one_agent idle
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_failure 2
	[ "$(bucket_of TASK-001)" = DONE ]
	branch=$(field TASK-002 branch)
	[ "$(git rev-parse "$branch")" != "$rejected" ]
	git merge-base --is-ancestor main "$branch"
	jq -e '[.runs[] | select(.task == "TASK-002") | .result] == ["unchanged", "unchanged"]' <<<"$output"
	grep -q "TASK-002: nothing changed since head ${rejected:0:10} was rejected: head [0-9a-f]* (rebased by the queue) makes the same change against its base" <<<"$stderr"
	# One QA round: the hand submit and the queue's rejection only.
	[ "$(all_events | grep '"task":"TASK-002"' | grep -c '"action":"submit"')" = 1 ]
	[ "$(field TASK-002 qa_attempts)" = 1 ]
	[ "$(bucket_of TASK-002)" = BLOCKED ]
}

@test "what watch prints about a task the queue rejects is where it went: BLOCKED when that rejection spent its last QA attempt" {
	watch_repo
	breaking_build
	set_config qa_max_attempts 1
	git burl add "Breaks" --affects f1.txt >/dev/null
	agent breaker 'echo BROKEN >f1.txt'
	one_agent breaker
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	grep -q 'TASK-001: rejected: .*; BLOCKED: its 1 QA attempt(s) are spent (qa_max_attempts)' <<<"$stderr" || { echo "$stderr"; false; }
	! grep 'TASK-001' <<<"$stderr" | grep -q 'back to READY' || { echo "$stderr"; false; }
	jq -e '.blocked == ["TASK-001"] and .rejected == []' <<<"$output"
}

@test "a run of seconds lost to kill -9 of its watcher is LOST after the seconds it ran, not after 0s" {
	watch_repo
	git burl add "Steps" --affects-glob 'src/**' >/dev/null
	agent stepper 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do echo "step $i"; sleep 1; done'
	SANDBOX=none one_agent stepper
	# git-burl execs the verb, so $! is watch itself.
	git-burl watch --interval 100ms 2>"$BATS_TEST_TMPDIR/w.log" &
	WATCH=$!
	wait_until 30 bash -c 'grep -qs "step 5" .burl/.workflow/logs/TASK-001/*.log'
	kill -9 "$WATCH"
	wait "$WATCH" || true
	WATCH=
	run git burl monitor --once
	assert_output_contains "TASK-001 bot#1 LOST after"
	grep -qE 'TASK-001 bot#1 LOST after ([4-9]|[1-9][0-9])s' <<<"$output" || { echo "$output"; false; }
}

@test "a reviewer's request for changes is a round: the author's next run backs off, and the reviews are numbered round 1, round 2" {
	watch_repo
	set_config retry_backoff 2s
	git burl add "Feature" --affects-glob "src/**" >/dev/null
	agent coder 'mkdir -p src; if grep -q "say two" "$BURL_PROMPT_FILE"; then echo two >src/f.txt; else echo one >src/f.txt; fi'
	# The reviewer asks for "two", then approves it.
	cat >"$AGENTS/critic" <<'SH'
#!/bin/sh
if grep -q "^+two" "$BURL_PROMPT_FILE"; then
	printf '{"verdict":"approve","summary":"now right","comments":[]}' >"$BURL_REVIEW_FILE"
else
	printf '{"verdict":"request_changes","summary":"wrong word","comments":[{"path":"src/f.txt","line":1,"body":"say two, not one"}]}' >"$BURL_REVIEW_FILE"
fi
SH
	chmod +x "$AGENTS/critic"
	agents_yaml "auto_approve: true
review: {agent: critic, rounds: 2}
agents:
  - name: coder
    command: [\"$AGENTS/coder\"]
    timeout: 30s
  - name: critic
    command: [\"$AGENTS/critic\"]
    timeout: 30s"
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	grep -q 'TASK-001: run 2 waits .*(retry_backoff 2s, doubled with each of its 1 failed round(s))' <<<"$stderr" || { echo "$stderr"; false; }
	grep -q 'TASK-001: review round 1 by critic: request_changes' <<<"$stderr"
	grep -q 'TASK-001: review round 2 by critic: approve' <<<"$stderr"
	jq -e '[.runs[] | select(.agent == "critic") | .attempt] == [1, 2]' <<<"$output"
}
