#!/usr/bin/env bats
# DESIGN §27: the board acts. Keys on the selected task run the verb a
# person would type (diff, approve, reject, hold/unhold, unblock, stop,
# cancel), asking for a reason where the verb needs one, and show what it
# printed; driven here under tmux, on a real repository.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch
load board

teardown() {
	tm kill-server 2>/dev/null || true
}

# two_in_qa: TASK-001 and TASK-002 submitted, in QA.
two_in_qa() {
	new_burl_repo
	set_config max_parallel 0
	git burl add "Implement jump" --affects src/jump.go >/dev/null 2>&1
	git burl add "Write the notes" --affects docs/notes.md >/dev/null 2>&1
	submitted TASK-001 src/jump.go "$(jump_go 'return')" >/dev/null
	submitted TASK-002 docs/notes.md "notes" >/dev/null
}

start_board() {
	tm new-session -d -x 120 -y 40 -c "$REPO" "git burl monitor; sleep 60"
	wait_until 10 pane_has "QA 2"
}

@test "the board's help line lists its keys; d shows the diff; approve from the board lands the task" {
	need tmux
	two_in_qa
	start_board
	pane_has "d diff a approve r reject H hold/unhold u unblock s stop x cancel"
	# READY and DOING are empty: two steps right is QA, TASK-001 first.
	tm send-keys -t 0 Right Right
	tm send-keys -t 0 d
	wait_until 10 pane_has '$ git burl diff TASK-001'
	wait_until 10 pane_has '+++ b/src/jump.go'
	tm send-keys -t 0 Escape
	wait_until 5 pane_has "QA 2"
	tm send-keys -t 0 a
	wait_until 60 pane_has '(exit 0)'
	pane_has '$ git burl approve TASK-001'
	[ "$(bucket_of TASK-001)" = DONE ]
	grep -q 'return' <(git show main:src/jump.go)
	tm send-keys -t 0 Escape
	wait_until 10 pane_has "DONE 1"
	pane_has "QA 1"
}

@test "reject from the board asks a reason and runs git burl reject with it; a refusal is shown as the verb prints it" {
	need tmux
	two_in_qa
	start_board
	tm send-keys -t 0 Right Right Down
	tm send-keys -t 0 r
	wait_until 5 pane_has "reject TASK-002: reason?"
	# Enter with no reason runs nothing.
	tm send-keys -t 0 Enter
	sleep 0.5
	[ "$(bucket_of TASK-002)" = QA ]
	tm send-keys -t 0 -l "the notes are empty"
	tm send-keys -t 0 Enter
	wait_until 30 pane_has '(exit 0)'
	pane_has "\$ git burl reject TASK-002 --reason 'the notes are empty'"
	[ "$(bucket_of TASK-002)" = READY ]
	grep -q 'the notes are empty' "$(task_file TASK-002)"
	# hold on the same task, now in READY: asks, holds; H again unholds.
	tm send-keys -t 0 Escape
	wait_until 10 pane_has "READY 1"
	tm send-keys -t 0 Left Left
	tm send-keys -t 0 H
	wait_until 5 pane_has "hold TASK-002: reason?"
	tm send-keys -t 0 -l "mine"
	tm send-keys -t 0 Enter
	wait_until 30 pane_has '(exit 0)'
	[ "$(field TASK-002 held_reason)" = mine ]
	tm send-keys -t 0 Escape
	wait_until 10 pane_has "held"
	tm send-keys -t 0 H
	wait_until 30 pane_has '$ git burl unhold TASK-002'
	wait_until 10 pane_has '(exit 0)'
	[ "$(field TASK-002 held_reason)" = null ]
	# A verb's refusal is shown, its exit code too: TASK-002 is not QA.
	tm send-keys -t 0 Escape
	wait_until 5 pane_has "READY 1"
	tm send-keys -t 0 a
	wait_until 30 pane_has '(exit 1)'
	pane_has "TASK-002 is in READY"
	# cancel asks a reason too, and ends the task.
	tm send-keys -t 0 Escape
	wait_until 5 pane_has "READY 1"
	tm send-keys -t 0 x
	wait_until 5 pane_has "cancel TASK-002: reason?"
	tm send-keys -t 0 -l "not needed"
	tm send-keys -t 0 Enter
	wait_until 30 pane_has '(exit 0)'
	[ "$(field TASK-002 resolution)" = cancelled ]
}

@test "unblock from the board moves a BLOCKED task back to READY" {
	need tmux
	two_in_qa
	git burl add "Pick a database" --affects db.txt >/dev/null 2>&1
	git burl block TASK-003 --reason "which database?" >/dev/null 2>&1
	start_board
	wait_until 5 pane_has "BLOCKED 1"
	# READY, DOING, QA, DONE, BLOCKED: four steps right.
	tm send-keys -t 0 Right Right Right Right
	tm send-keys -t 0 u
	wait_until 30 pane_has '$ git burl unblock TASK-003'
	wait_until 10 pane_has '(exit 0)'
	[ "$(bucket_of TASK-003)" = READY ]
	tm send-keys -t 0 Escape
	wait_until 10 pane_has "BLOCKED 0"
}
