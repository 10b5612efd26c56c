#!/usr/bin/env bats
# A human takes work from agents (DESIGN §20, issue 32 items 5, 6, 9):
# unblock --claim, hold/unhold, edit, cancel; reasons with a summary and a
# fix for the human; the small lies (mid-word cuts, a silent priority
# boost, init's guessed build command, add --help). Agents are scripts
# under a real git burl watch; the board runs under tmux, the report in
# headless chromium.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

tm() { tmux -L "burl-hv-$BATS_TEST_NUMBER-$$" "$@"; }

teardown() {
	tm kill-server 2>/dev/null || true
	[ -z "${WATCH_PID:-}" ] || kill "$WATCH_PID" 2>/dev/null || true
	wait 2>/dev/null || true
}

# start_watch: git burl watch in the background, polling every 100 ms.
start_watch() {
	git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/watch.out" 2>&1 &
	WATCH_PID=$!
}

stop_watch() {
	kill -TERM "$WATCH_PID" 2>/dev/null || true
	wait "$WATCH_PID" 2>/dev/null || true
	WATCH_PID=
}

# eager_agent: an agent that takes whatever it is given and lands it.
eager_agent() {
	watch_repo
	agent eager 'echo "$BURL_TASK" >>"'"$AGENTS"'/taken"; mkdir -p src; echo "$BURL_TASK" >"src/$BURL_TASK.txt"'
	one_agent eager
}

taken() { grep -qx "$1" "$AGENTS/taken" 2>/dev/null; }

@test "unblock --claim takes a BLOCKED task into DOING for the human in one step: a running watch whose agent would take it never does" {
	eager_agent
	git burl add "Mine" --affects-glob 'src/**' >/dev/null 2>&1
	git burl block TASK-001 --reason "needs a human's eye" >/dev/null
	start_watch
	sleep 0.5
	run --separate-stderr git burl unblock TASK-001 --claim --json
	assert_success
	[ "$(jq -r '.task.bucket' <<<"$output")" = DOING ]
	[ "$(jq -r '.task.assigned_to' <<<"$output")" = tester@bats ]
	[ "$(field TASK-001 blocked_reason)" = null ]
	sleep 1
	stop_watch
	[ "$(bucket_of TASK-001)" = DOING ]
	[ "$(field TASK-001 assigned_to)" = tester@bats ]
	! taken TASK-001
	# One commit: unblock, then claim, both the human's, nothing between.
	[ "$(git -C .burl log -1 --format=%s)" = "burl: claim TASK-001" ]
	git -C .burl show HEAD -- .workflow/events | sed -n 's/^+{/{/p' >"$BATS_TEST_TMPDIR/ev"
	[ "$(jq -r .action "$BATS_TEST_TMPDIR/ev" | tr '\n' ' ')" = "unblock claim " ]
	[ "$(all_events | jq -r 'select(.task == "TASK-001") | .action' | tr '\n' ' ')" = "add block unblock claim " ]
	git burl doctor
}

@test "hold keeps a task from a running watch (READY and BLOCKED), status, show and the board say so, unhold gives it back; hold of DOING releases it held, of QA is refused" {
	need tmux
	eager_agent
	git burl add "Held one" --affects-glob 'src/**' >/dev/null 2>&1
	git burl add "Blocked one" --affects-glob 'src/**' >/dev/null 2>&1
	run git burl hold TASK-001
	assert_failure 1
	assert_output_contains "--reason"
	git burl hold TASK-001 --reason "I will do this one myself" >/dev/null
	git burl block TASK-002 --reason "waiting on design" >/dev/null
	git burl hold TASK-002 --reason "design review first" >/dev/null
	git burl unblock TASK-002 >/dev/null
	[ "$(field TASK-002 held_reason)" = "design review first" ]
	start_watch
	sleep 1.5
	! taken TASK-001
	! taken TASK-002
	[ "$(bucket_of TASK-001)" = READY ]
	run git burl status
	assert_output_contains "[held: I will do this one myself]"
	assert_output_contains "git burl unhold TASK-001"
	refute_output_contains "next: git burl claim TASK-001"
	[ "$(git burl status --json | jq -r '.tasks[] | select(.id == "TASK-001") | .held_reason')" = "I will do this one myself" ]
	git burl status --json --open | jq -e '.tasks[] | select(.id == "TASK-001") | .suggest == "" and (.waits | test("held"))'
	run git burl show TASK-001
	assert_output_contains "held_reason:   I will do this one myself"
	run git burl claim
	assert_failure 4
	assert_output_contains "held by a human (I will do this one myself)"
	tm new-session -d -x 140 -y 30 -c "$REPO" "git burl monitor; sleep 60"
	wait_until 10 bash -c "tmux -L burl-hv-$BATS_TEST_NUMBER-$$ capture-pane -p -t 0 | grep -qF 'held: I will do'"
	tm capture-pane -p -t 0 | grep -q 'TASK-001 m H'
	git burl unhold TASK-002 >/dev/null
	wait_until 10 taken TASK-002
	! taken TASK-001
	stop_watch
	all_events | grep -q '"task":"TASK-001","action":"hold".*"reason":"I will do this one myself"'
	all_events | grep -q '"task":"TASK-002","action":"unhold".*"was_held":"design review first"'
	# DOING: released and held in one step.
	git burl claim TASK-001 --force >/dev/null 2>&1
	run git burl hold TASK-001 --reason "taking it back"
	assert_success
	[ "$(bucket_of TASK-001)" = READY ]
	[ "$(field TASK-001 assigned_to)" = null ]
	[ "$(field TASK-001 held_reason)" = "taking it back" ]
	# QA waits for approve, not for an agent.
	git burl add "In QA" --affects-glob 'src/**' >/dev/null 2>&1
	wt=$(claim_wt TASK-003)
	(cd "$wt" && commit_file src/q.txt q && git burl submit TASK-003) >/dev/null 2>&1
	run git burl hold TASK-003 --reason x
	assert_failure 1
	assert_output_contains "TASK-003 is in QA"
	git burl doctor
}

@test "edit changes title, description, criteria, priority, tags, dependencies and budget, refuses scope (naming git burl scope), unknown IDs and cycles; event edit says what changed" {
	new_burl_repo
	git burl add "First" --affects a.txt >/dev/null 2>&1
	git burl add "Second" --affects b.txt --depends-on TASK-001 --tags api >/dev/null 2>&1
	run --separate-stderr git burl edit TASK-002 --title "Second, renamed" --description "Ship the thing" \
		--ac "it works" --ac "it is tested" --priority critical --add-tag ui --remove-tag api --max-cost-usd 2.5 --json
	assert_success
	[ "$(jq -r '[.changes[].field] | join(",")' <<<"$output")" = "title,priority,tags,max_cost_usd,description,acceptance_criteria" ]
	[ "$(field TASK-002 title)" = '"Second, renamed"' ] || [ "$(field TASK-002 title)" = "Second, renamed" ]
	[ "$(field TASK-002 priority)" = critical ]
	[ "$(field TASK-002 max_cost_usd)" = 2.5 ]
	grep -qx -- '  - ui' "$(task_file TASK-002)"
	! grep -qx -- '  - api' "$(task_file TASK-002)"
	grep -qx 'Ship the thing' "$(task_file TASK-002)"
	grep -qx -- '- \[ \] it is tested' "$(task_file TASK-002)"
	git burl edit TASK-002 --add-ac "it is documented" >/dev/null
	grep -qx -- '- \[ \] it works' "$(task_file TASK-002)"
	grep -qx -- '- \[ \] it is documented' "$(task_file TASK-002)"
	run git burl edit TASK-002 --affects src/x.go
	assert_failure 1
	assert_output_contains "git burl scope TASK-002"
	run git burl edit TASK-002 --depends-on TASK-009
	assert_failure 1
	assert_output_contains "TASK-009: no such task"
	run git burl edit TASK-001 --depends-on TASK-002
	assert_failure 1
	assert_output_contains "cycle: TASK-001 → TASK-002 → TASK-001"
	run git burl edit TASK-002 --priority critical
	assert_failure 1
	assert_output_contains "nothing to change"
	git burl edit TASK-002 --remove-depends-on TASK-001 >/dev/null
	[ "$(field TASK-002 depends_on)" = "[]" ]
	all_events | jq -e 'select(.action == "edit") | .details.changes[] | select(.field == "depends_on") | .from == ["TASK-001"] and .to == []'
	run git burl log --action edit
	assert_success
	assert_output_contains "edit       TASK-002"
	git burl doctor
}

@test "cancel ends a task without landing: DONE with resolution: cancelled, told apart from landed in status, status --json, log, the board and the HTML report in chromium" {
	need chromium
	eager_agent
	git burl add "Lands" --affects-glob 'src/**' >/dev/null 2>&1
	git burl add "Dropped" --affects-glob 'src/**' >/dev/null 2>&1
	git burl add "Needs dropped" --affects-glob 'src/**' --depends-on TASK-002 >/dev/null 2>&1
	git burl hold TASK-002 --reason "think first" >/dev/null
	git burl hold TASK-003 --reason "think first" >/dev/null
	git burl watch --once --interval 100ms >/dev/null 2>&1
	[ "$(bucket_of TASK-001)" = DONE ]
	run git burl cancel TASK-002 --reason "not needed any more"
	assert_failure 1
	assert_output_contains "TASK-003 depends on TASK-002"
	assert_output_contains "git burl edit TASK-003 --remove-depends-on TASK-002"
	git burl edit TASK-003 --remove-depends-on TASK-002 >/dev/null
	run git burl cancel TASK-002 --reason "not needed any more" --json
	assert_success
	[ "$(jq -r .task.bucket <<<"$output")" = DONE ]
	[ "$(field TASK-002 resolution)" = cancelled ]
	[ "$(field TASK-002 held_reason)" = null ]
	run git burl status
	assert_output_contains "DONE 2 (1 landed, 1 cancelled)"
	[ "$(git burl status --json | jq -c '[.counts.DONE, .cancelled]')" = "[2,1]" ]
	[ "$(git burl status --json --open | jq -c '[.counts.DONE, .cancelled]')" = "[2,1]" ]
	[ "$(git burl status --json | jq -r '.tasks[] | select(.id == "TASK-002") | .resolution')" = cancelled ]
	[ "$(git burl status --json | jq -r '.tasks[] | select(.id == "TASK-001") | .resolution')" = null ]
	run git burl log --action cancel
	assert_output_contains "cancel     TASK-002"
	assert_output_contains "resolution=cancelled"
	run git burl monitor --once
	assert_output_contains "DONE 1 landed, 1 cancelled"
	assert_output_contains "TASK-002 m N"
	git burl monitor --html "$BATS_TEST_TMPDIR/report.html" >/dev/null
	run timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$BATS_TEST_TMPDIR/chrome" \
		--dump-dom "file://$BATS_TEST_TMPDIR/report.html"
	assert_success
	assert_output_contains '<div class="meta cancelled">cancelled: not needed any more</div>'
	assert_output_contains "2 (1 landed, 1 cancelled)"
	git burl doctor
}

@test "a scope failure under watch: the block reason's summary (at most 120 characters) names every file on status, the board and the HTML card; the full text and the human's exact scope line are in show; watch's lines are not cut mid-word" {
	need chromium
	watch_repo
	git burl add "Stray" --affects src/ok.txt >/dev/null 2>&1
	agent stray 'mkdir -p src docs; echo ok >src/ok.txt; echo one >docs/first-stray-file.md; echo two >"docs/second stray.md"'
	RETRIES=1 one_agent stray
	run --separate-stderr git burl watch --once --interval 100ms
	assert_failure 2
	watch_err=$stderr
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	summary=$(git burl show TASK-001 --json | jq -r .task.blocked_summary)
	echo "summary: $summary" >&3
	[ "${#summary}" -le 120 ]
	[[ $summary == *"2 file(s) outside TASK-001's scope: docs/first-stray-file.md, docs/second stray.md"* ]]
	run git burl status
	assert_output_contains "reason: $summary"
	refute_output_contains "The last run's failure"
	run git burl show TASK-001
	assert_output_contains "git burl scope TASK-001 --affects docs/first-stray-file.md --affects 'docs/second stray.md' --reason"
	assert_output_contains "git diff "
	refute_output_contains "only asks: a human decides"
	all_events | jq -e 'select(.action == "block") | (.details.reason | test("The last run.s failure")) and (.details.summary | length <= 120)'
	# Machine output (not a terminal): whole lines, never cut mid-word.
	grep -q 'docs/second stray.md' <<<"$watch_err"
	! grep -q '[^ ]…' <<<"$watch_err"
	git burl monitor --html "$BATS_TEST_TMPDIR/report.html" >/dev/null
	run timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$BATS_TEST_TMPDIR/chrome" \
		--dump-dom "file://$BATS_TEST_TMPDIR/report.html"
	assert_success
	card=$(grep -o '<div class="meta reason">blocked: [^<]*</div>' <<<"$output")
	[ "$(wc -l <<<"$card")" = 1 ]
	[[ $card == *"docs/second stray.md"* ]]
	[[ $card != *"Fix"* ]]
}

@test "a rejection that raises the priority says so: reject's output, the QA report and the event" {
	new_burl_repo
	git burl add "Retry me" --affects src/jump.go >/dev/null 2>&1
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file src/jump.go "$(jump_go 'println("x")')" && git burl submit TASK-001) >/dev/null 2>&1
	run git burl reject TASK-001 --reason "not yet"
	assert_success
	assert_output_contains "priority raised medium → high (auto_priority_boost_on_retry"
	[ "$(field TASK-001 priority)" = high ]
	grep -q 'Priority raised from medium to high (auto_priority_boost_on_retry)' "$(task_file TASK-001)"
	all_events | jq -e 'select(.action == "reject") | .details.priority_from == "medium" and .details.priority_to == "high"'
}

@test "init says gate_network when the build command it guesses downloads dependencies (DESIGN §24)" {
	new_repo
	printf 'module example.com/x\n\ngo 1.22\n\nrequire github.com/a/b v1.0.0\n' >go.mod
	git add go.mod && git commit -qm go.mod
	run git burl init
	assert_success
	assert_output_contains "build_command: go test ./... (guessed from go.mod)"
	assert_output_contains "gate_network: true in agents.yaml"
}

@test "init says which build_command it guessed and where to change it; add --help shows --description and --ac" {
	new_repo
	printf 'module example.com/x\n' >go.mod
	git add go.mod && git commit -qm go.mod
	run git burl init
	assert_success
	assert_output_contains "build_command: go test ./... (guessed from go.mod)"
	assert_output_contains ".burl/.workflow/config.yaml"
	# A go.mod without a require downloads nothing: no word of the network.
	[[ $output != *gate_network* ]] || false
	run git burl add --help
	assert_output_contains '--description TEXT'
	assert_output_contains '--ac TEXT'
}
