#!/usr/bin/env bats
# DESIGN §25 (issue 40.11): several clones run git burl watch --once against
# one origin. A transition that fails for a reason that is not the work's (a
# branch only the clone that submitted it has, a race for main lost to
# another clone) is never a QA rejection: the task stays in QA for the
# clone that can land it, and every task lands.

load helpers
load lifecycle
load watch

# clones_setup N: origin with N tasks (task N writes fN.txt), agents.yaml
# with one 1-second agent and auto_approve, workflow_auto_push and
# push_main_on_approve on, task branches not pushed on submit (the
# default); clones a, b and c of it, each trusting the agent. $R holds them.
clones_setup() {
	new_repo
	R="$BATS_TEST_TMPDIR"
	mv "$REPO" "$R/a"
	REPO="$R/a"
	cd "$R/a" || return 1
	git burl init >/dev/null
	sed -i -e 's/^workflow_auto_push: false/workflow_auto_push: true/' -e 's/^push_main_on_approve: false/push_main_on_approve: true/' \
		-e 's/^max_parallel: .*/max_parallel: 0/' .burl/.workflow/config.yaml
	grep -q '^push_task_branch_on_submit: false' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "auto-push, push main"
	AGENTS="$R/agents"
	mkdir -p "$AGENTS"
	# The agent writes its task's own file: every task's work is new.
	agent work 'sleep 1; n=$(expr "${BURL_TASK#TASK-}" + 0); echo "$BURL_TASK" >"f$n.txt"'
	local i
	for ((i = 1; i <= $1; i++)); do
		git burl add "task $i" --affects "f$i.txt" >/dev/null
	done
	agents_yaml "auto_approve: true
agents:
  - name: bot
    command: [\"$AGENTS/work\"]
    max_parallel: 2
    timeout: 60s
    retries: 1"
	git -C .burl push -q origin burl
	git push -q origin main
	for c in b c; do
		clone_repo "$R/$c"
		(cd "$R/$c" && git burl init >/dev/null && git burl trust --yes >/dev/null)
	done
}

@test "three clones running watch --once against one origin land every task, none rejected: a clone that lacks a task's branch leaves it to the clone that has it" {
	clones_setup 9
	local c pids=() rc
	for c in a b c; do
		(cd "$R/$c" && exec git burl watch --once --interval 200ms --json >"$R/$c.json" 2>"$R/$c.err") &
		pids+=($!)
	done
	rc=0
	for p in "${pids[@]}"; do
		wait "$p" || rc=$?
	done
	cd "$R/a"
	git fetch -q origin
	for c in a b c; do
		echo "== $c" && tail -n 30 "$R/$c.err"
	done
	# Every task DONE on origin, main holds every task's file.
	[ "$(git ls-tree -r --name-only origin/burl .workflow/DONE | grep -c 'TASK-')" = 9 ]
	for i in $(seq 1 9); do
		git cat-file -e "origin/main:f$i.txt"
	done
	# No rejection, no QA attempt spent, no blocked task, every watch ok.
	! remote_events | grep -q '"action":"reject"'
	! remote_events | grep -q '"action":"block"'
	[ "$rc" = 0 ]
	for c in a b c; do
		jq -e '.ok and (.rejected | length == 0) and (.blocked | length == 0)' "$R/$c.json" >/dev/null
	done
	# Each clone ran some of the tasks: the work was shared.
	for c in a b c; do
		jq -e '[.runs[] | select(.result == "submitted")] | length > 0' "$R/$c.json" >/dev/null
	done
}

@test "two clones under watch review one QA task once: the review holds the task under a lease the other clone's watch respects" {
	new_repo
	R="$BATS_TEST_TMPDIR"
	mv "$REPO" "$R/a"
	REPO="$R/a"
	cd "$R/a" || return 1
	git burl init >/dev/null
	sed -i -e 's/^workflow_auto_push: false/workflow_auto_push: true/' -e 's/^push_task_branch_on_submit: false/push_task_branch_on_submit: true/' \
		-e 's/^max_parallel: .*/max_parallel: 0/' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "auto-push, push task branches"
	git burl add "Feature" --affects f1.txt >/dev/null
	AGENTS="$R/agents"
	mkdir -p "$AGENTS"
	agent coder 'true'
	# A reviewer slow enough for both watchers to see the task unreviewed.
	agent critic 'sleep 3; printf "{\"verdict\":\"approve\",\"summary\":\"fine\",\"comments\":[]}" >"$BURL_REVIEW_FILE"'
	agents_yaml "auto_approve: true
review: {agent: critic, rounds: 2}
agents:
  - name: coder
    command: [\"$AGENTS/coder\"]
  - name: critic
    command: [\"$AGENTS/critic\"]
    timeout: 30s"
	git -C .burl push -q origin burl
	submitted TASK-001 f1.txt "one" >/dev/null
	clone_repo "$R/b"
	(cd "$R/b" && git burl init >/dev/null && git burl trust --yes >/dev/null)
	local c pids=()
	for c in a b; do
		(cd "$R/$c" && exec git burl watch --once --interval 100ms >"$R/$c.out" 2>&1) &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || { cat "$R/a.out" "$R/b.out"; false; }
	done
	git fetch -q origin
	[ "$(git ls-tree -r --name-only origin/burl .workflow/DONE | grep -c 'TASK-001')" = 1 ]
	[ "$(remote_events | grep -c '"action":"review"')" = 1 ] || { cat "$R/a.out" "$R/b.out"; remote_events | grep review; false; }
	[ "$(remote_events | grep -c '"action":"approve"')" = 1 ]
	[ "$(remote_events | grep -c '"action":"review_start"')" = 1 ]
}

@test "approve in a clone that lacks the submitted commit says the work is in the clone that submitted it, and changes nothing" {
	new_repo
	R="$BATS_TEST_TMPDIR"
	mv "$REPO" "$R/a"
	REPO="$R/a"
	cd "$R/a" || return 1
	git burl init >/dev/null
	sed -i 's/^workflow_auto_push: false/workflow_auto_push: true/' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "auto-push"
	git burl add "Feature" --affects f1.txt >/dev/null
	git -C .burl push -q origin burl
	submitted TASK-001 f1.txt "one" >/dev/null
	clone_repo "$R/b"
	cd "$R/b"
	REPO="$R/b"
	git burl init >/dev/null
	run git burl approve TASK-001
	assert_failure 1
	assert_output_contains "waits for the clone that submitted it: its submitted commit"
	assert_output_contains "approve it in the clone that submitted it, or push its branch there (git push origin task-001-feature)"
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(field TASK-001 qa_attempts)" = 0 ]
}
