#!/usr/bin/env bats
# approve --all --dry-run (DESIGN §27): the queue's order and batches,
# changing nothing; status and the board show each QA task's place, from
# the same plan the queue lands by.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load queue

setup() {
	queue_setup
}

# state: every ref and every file of the clone and its workflow worktree
# but git's object store, with its content's hash.
state() {
	git for-each-ref --format='%(refname) %(objectname)'
	find "$REPO" -path "$REPO/.git/objects" -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha1sum
}

@test "approve --all --dry-run shows the queue's order and batches of queue_batch and changes nothing; approve --all then lands just that" {
	set_config queue_batch 2
	qa 1 low
	qa 2 critical
	qa 3 high
	qa 4 medium
	sleep 1 # submitted_at has whole seconds
	qa 5 medium
	before=$(state)
	run git burl approve --all --dry-run
	assert_success
	assert_output_contains "batch 1: TASK-002, TASK-003"
	assert_output_contains "batch 2: TASK-004, TASK-005"
	assert_output_contains "batch 3: TASK-001"
	assert_output_contains "5 task(s) would land in 3 batch(es) of up to 2"
	run git burl approve --all --dry-run --json
	assert_success
	[ "$(jq -c '.batches' <<<"$output")" = '[["TASK-002","TASK-003"],["TASK-004","TASK-005"],["TASK-001"]]' ]
	[ "$(jq -c '[.ok, .batch_size]' <<<"$output")" = '[true,2]' ]
	[ "$(jq -c '.queue[] | select(.id == "TASK-004") | [.position, .batch, .waits]' <<<"$output")" = '[3,2,"batch"]' ]
	[ "$(jq -c '.queue[] | select(.id == "TASK-002") | [.position, .batch, .waits]' <<<"$output")" = '[1,1,"queue"]' ]
	[ "$(state)" = "$before" ]
	[ "$(builds)" -eq 0 ]
	# status and the board say the same places.
	[ "$(git burl status --json | jq -c '[.tasks[] | select(.bucket == "QA") | [.id, .queue.position, .queue.batch]] | sort_by(.[1])')" = '[["TASK-002",1,1],["TASK-003",2,1],["TASK-004",3,2],["TASK-005",4,2],["TASK-001",5,3]]' ]
	run git burl status
	assert_output_contains "[queue 3, batch 2]"
	COLUMNS=200 run git burl monitor --once
	assert_output_contains "queue 5, batch 3"
	run git burl approve --all --json
	assert_success
	[ "$(jq -c '.approved' <<<"$output")" = '["TASK-002","TASK-003","TASK-004","TASK-005","TASK-001"]' ]
	[ "$(builds)" -eq 3 ]
}

@test "approve --all --dry-run: a task whose agent asks for scope waits for a human, and is not in a batch; --dry-run goes with --all" {
	qa 1 medium
	qa 2 medium
	sed -i 's/^priority:/scope_request: "+ affects: x.txt — I need it"\npriority:/' "$(task_file TASK-002)"
	git -C .burl commit -q -am "TASK-002 asks for scope"
	run git burl approve --all --dry-run --json
	assert_success
	[ "$(jq -c '.batches' <<<"$output")" = '[["TASK-001"]]' ]
	[ "$(jq -r '.queue[] | select(.id == "TASK-002") | .waits' <<<"$output")" = scope_request ]
	run git burl approve --all --dry-run
	assert_output_contains "left in QA: TASK-002 (scope_request): it waits for a human to grant or refuse its scope request"
	run git burl status --json
	[ "$(jq -r '.tasks[] | select(.id == "TASK-002") | .queue.waits' <<<"$output")" = scope_request ]
	run git burl approve --dry-run
	assert_failure 1
	run git burl approve TASK-001 --dry-run
	assert_failure 1
}
