#!/usr/bin/env bats
# DESIGN §20: one function says what happens next to a task, and why;
# status, status --json (and --open, what agents poll), show and watch say
# the same, and never name a command the verb would refuse: each case runs
# exactly what was suggested.

load helpers
load lifecycle
load watch

# next_line ID: the "next:" line status prints under ID.
next_line() { git burl status | grep -A3 "^  $1 " | grep -m1 'next:'; }
# show_next ID: the "next:" line of git burl show ID.
show_next() { git burl show "$1" | grep -m1 '^next:'; }

@test "a BLOCKED task whose dependencies are DONE is offered unblock: in status, --json --open and show; running it works" {
	new_burl_repo
	git burl add "Base" --affects a.txt >/dev/null
	git burl add "On top" --affects b.txt --depends-on TASK-001 >/dev/null
	submitted TASK-001 a.txt base >/dev/null
	git burl approve TASK-001 >/dev/null 2>&1
	[ "$(bucket_of TASK-001)" = DONE ]
	git burl block TASK-002 --reason "parked for a design review" >/dev/null
	[[ "$(next_line TASK-002)" == *"next: git burl unblock TASK-002"* ]] || { git burl status; false; }
	run git burl status
	refute_output_contains "waits for TASK-001"
	[ "$(OPEN=1 suggest_of TASK-002)" = "git burl unblock TASK-002" ]
	[ "$(OPEN=1 state_of TASK-002)" = unblockable ]
	[ "$(suggest_of TASK-002)" = "git burl unblock TASK-002" ]
	[[ "$(show_next TASK-002)" == *"git burl unblock TASK-002" ]]
	[ "$(git burl show TASK-002 --json | jq -r .next.suggest)" = "git burl unblock TASK-002" ]
	OPEN=1 follow TASK-002
	[ "$(bucket_of TASK-002)" = READY ]
	OPEN=1 follow TASK-002
	[ "$(bucket_of TASK-002)" = DOING ]
}

@test "a task waiting on a BLOCKED dependency names it, its reason and what moves it, never claim; the dependency's own step works" {
	new_burl_repo
	set_config max_parallel 0
	git burl add "Vendor setup" --affects v.txt >/dev/null
	git burl add "Uses the vendor" --affects u.txt --depends-on TASK-001 >/dev/null
	git burl add "Also parked" --affects p.txt --depends-on TASK-001 >/dev/null
	git burl block TASK-001 --reason "needs the vendor's key" >/dev/null
	git burl block TASK-003 --reason "parked" >/dev/null
	want="waits for TASK-001 to be DONE (TASK-001 is BLOCKED: git burl show TASK-001 says why): needs the vendor's key; next for TASK-001: git burl unblock TASK-001"
	for o in "" 1; do
		[ -z "$(OPEN=$o suggest_of TASK-002)" ]
		[ "$(OPEN=$o waits_of TASK-002)" = "$want" ]
		[ "$(OPEN=$o state_of TASK-002)" = waits_blocked_dependency ]
		[ "$(OPEN=$o waits_of TASK-003)" = "$want" ]
	done
	[ "$(next_line TASK-002)" = "            next: $want" ]
	run git burl show TASK-002
	assert_output_contains "next:          $want"
	refute_output_contains "git burl claim"
	run git burl claim TASK-002
	assert_failure 4
	run git burl unblock TASK-003
	assert_failure 1
	# What the waiting task names for its dependency is accepted.
	follow TASK-001
	[ "$(bucket_of TASK-001)" = READY ]
	[ "$(waits_of TASK-002)" = "waits for TASK-001 to be DONE" ]
	[ "$(waits_of TASK-003)" = "waits for TASK-001 to be DONE (then git burl unblock TASK-003)" ]
	every_suggest_is_sound
}

@test "a BLOCKED dependency that waits itself: the waiting task says what that one waits for" {
	new_burl_repo
	git burl add "First" --affects f.txt >/dev/null
	git burl add "Second" --affects s.txt --depends-on TASK-001 >/dev/null
	git burl add "Third" --affects t.txt --depends-on TASK-002 >/dev/null
	git burl block TASK-002 --reason "parked" >/dev/null
	[ "$(waits_of TASK-003)" = "waits for TASK-002 to be DONE (TASK-002 is BLOCKED: git burl show TASK-002 says why): parked; TASK-002 waits for TASK-001 to be DONE (then git burl unblock TASK-002)" ]
	[ "$(suggest_of TASK-001)" = "git burl claim TASK-001" ]
	every_suggest_is_sound
}

@test "a held task waits for a human: its wait names unhold (and claim by hand), which are accepted; no agent is told to act" {
	new_burl_repo
	git burl add "Mine" --affects m.txt >/dev/null
	git burl add "Parked" --affects p.txt >/dev/null
	git burl hold TASK-001 --reason "I will do this one myself" >/dev/null
	git burl block TASK-002 --reason "parked" >/dev/null
	git burl hold TASK-002 --reason "design first" >/dev/null
	for o in "" 1; do
		[ -z "$(OPEN=$o suggest_of TASK-001)" ]
		[ "$(OPEN=$o state_of TASK-001)" = held ]
		[ "$(OPEN=$o waits_of TASK-001)" = "held by a human (I will do this one myself): git burl unhold TASK-001 gives it back to agents; git burl claim TASK-001 --force takes it yourself" ]
		[ "$(OPEN=$o waits_of TASK-002)" = "held by a human (design first): git burl unhold TASK-002 gives it back to agents" ]
	done
	run git burl show TASK-001
	assert_output_contains "next:          waits: held by a human (I will do this one myself)"
	every_suggest_is_sound
	run git burl unhold TASK-002
	assert_success
	[ "$(suggest_of TASK-002)" = "git burl unblock TASK-002" ]
	run git burl claim TASK-001 --force
	assert_success
	[ "$(bucket_of TASK-001)" = DOING ]
}

@test "a cancelled task is never shown as landed: status --json (read fresh and from its cache) and show --json say cancelled, a landed one done" {
	new_burl_repo
	git burl add "Lands" --affects a.txt >/dev/null
	git burl add "Dropped" --affects b.txt >/dev/null
	submitted TASK-001 a.txt base >/dev/null
	git burl approve TASK-001 >/dev/null 2>&1
	git burl claim TASK-002 >/dev/null 2>&1
	git burl cancel TASK-002 --reason "not needed" >/dev/null
	for pass in fresh cached; do
		[ "$(state_of TASK-001)" = done ] || { echo "$pass: TASK-001 $(state_of TASK-001)" >&2; false; }
		[ "$(state_of TASK-002)" = cancelled ] || { echo "$pass: TASK-002 $(state_of TASK-002)" >&2; false; }
	done
	[ "$(git burl show TASK-002 --json | jq -r .next.state)" = cancelled ]
	[ "$(git burl show TASK-001 --json | jq -r .next.state)" = done ]
	run git burl show TASK-002
	refute_output_contains "next:"
}

# over_budget_repo CAP: one task blocked by watch over a budget: the
# task's own max_cost_usd CAP, or the agent's $1.00 without one.
over_budget_repo() {
	watch_repo
	git burl add "Expensive" --affects-glob "src/**" >/dev/null
	if [ -n "$1" ]; then
		sed -i "s/^priority:/max_cost_usd: $1\npriority:/" "$(task_file TASK-001)"
		git -C .burl commit -q -am "cap TASK-001"
	fi
	# Spends $0.60 a run and fails until $AGENTS/ok exists.
	agent pricey 'printf "{\"cost_usd\":0.6}\n" >"$BURL_USAGE_FILE"; [ -e '"$AGENTS"'/ok ] || exit 1; mkdir -p src; echo x >src/x.txt'
	agents_yaml "auto_approve: true
agents:
  - name: bot
    command: [\"$AGENTS/pricey\"]
    retries: 5
    max_cost_usd: 1.00"
	run git burl watch --once --interval 100ms
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
}

# raised_and_landed: run the edit status suggests for TASK-001, then the
# unblock it suggests next; with the agent fixed, watch lands the task.
raised_and_landed() {
	git burl edit --help >/dev/null 2>&1 || skip "git burl edit is not built yet"
	follow TASK-001
	[ "$(suggest_of TASK-001)" = "git burl unblock TASK-001" ]
	follow TASK-001
	touch "$AGENTS/ok"
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "a task BLOCKED over its own budget is not offered unblock (it would block again) but raising max_cost_usd; then unblock; then it runs" {
	over_budget_repo 0.5
	for o in "" 1; do
		[ "$(OPEN=$o state_of TASK-001)" = over_budget ]
		[ "$(OPEN=$o suggest_of TASK-001)" = "git burl edit TASK-001 --max-cost-usd 2" ]
	done
	run git burl status --json
	jq -e '.tasks[] | select(.id == "TASK-001") | .why | test("spent \\$0.60, over its budget") and test("git burl cancel TASK-001")' <<<"$output"
	[[ "$(next_line TASK-001)" == *"next: git burl edit TASK-001 --max-cost-usd 2 (its runs spent \$0.60, over its budget"* ]]
	run git burl show TASK-001
	refute_output_contains "next:          git burl unblock"
	# Unblocked as it is, watch blocks it again before any run.
	git burl unblock TASK-001 >/dev/null
	run git burl watch --once --interval 100ms
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ "$(grep -c '"action":"run_end"' <(all_events))" = 1 ]
	raised_and_landed
}

@test "a task BLOCKED over its agent's budget: raising the task's own max_cost_usd lets it run again" {
	over_budget_repo ""
	[ "$(state_of TASK-001)" = over_budget ]
	[ "$(suggest_of TASK-001)" = "git burl edit TASK-001 --max-cost-usd 3" ]
	raised_and_landed
}

@test "a task its agent works on under a live watch waits for that watch: no submit is suggested" {
	watch_repo
	git burl add "Slow" --affects-glob "src/**" >/dev/null
	agent slow 'echo $$ >'"$AGENTS"'/agent.pid; sleep 30'
	one_agent slow
	git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/watch.out" 2>&1 &
	wpid=$!
	wait_until 20 test -s "$AGENTS/agent.pid"
	wait_until 10 run_started TASK-001
	state=$(state_of TASK-001) suggest=$(suggest_of TASK-001) waits=$(waits_of TASK-001) shown=$(show_next TASK-001)
	kill -TERM "$wpid"
	wait "$wpid" || true
	[ "$state" = running ]
	[ -z "$suggest" ]
	[[ "$waits" == "its agent runs under git burl watch (bot@"*"#"*"), which submits it" ]]
	[[ "$shown" == *"waits: its agent runs under git burl watch"* ]]
}

@test "claim of a task waiting on a BLOCKED dependency, or on one behind it, never says to wait: it names the BLOCKED task, its reason and the command that moves it (exit 4)" {
	new_burl_repo
	set_config max_parallel 0
	git burl add "Vendor setup" --affects v.txt >/dev/null
	git burl add "Uses the vendor" --affects u.txt --depends-on TASK-001 >/dev/null
	git burl add "Uses that" --affects w.txt --depends-on TASK-002 >/dev/null
	git burl block TASK-001 --reason "needs the vendor's key" >/dev/null
	run git burl claim TASK-002
	assert_failure 4
	assert_output_contains "TASK-001 is BLOCKED (needs the vendor's key): it waits for a human, not for work"
	assert_output_contains "git burl unblock TASK-001"
	# Behind a dependency that is itself waiting: still named.
	run git burl claim TASK-003
	assert_failure 4
	assert_output_contains "behind it, TASK-001 is BLOCKED (needs the vendor's key)"
	assert_output_contains "git burl unblock TASK-001"
	refute_output_contains "finish those first"
	# claim with no ID: the same, once, and no "wait until" for tasks only
	# a human can move.
	run git burl claim
	assert_failure 4
	assert_output_contains "TASK-002: waits for TASK-001 to be DONE; TASK-001 is BLOCKED (needs the vendor's key)"
	assert_output_contains "TASK-003: waits for TASK-002 to be DONE; it waits for the BLOCKED TASK-001"
	assert_output_contains "a human settles TASK-001"
	refute_output_contains "wait until"
	# What it names works.
	git burl unblock TASK-001 >/dev/null
	[ "$(bucket_of TASK-001)" = READY ]
}
