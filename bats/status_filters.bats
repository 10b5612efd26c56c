#!/usr/bin/env bats
# status --open, --bucket and --since (issue 25): an agent that polls
# lists what it needs, not the whole history; the counts stay whole.

setup() {
	load helpers
	load lifecycle
	new_burl_repo
	git burl add "Landed" --affects src/a.go >/dev/null
	git burl add "In review" --affects src/b.go >/dev/null
	git burl add "Waiting" --affects src/c.go >/dev/null
	submitted TASK-001 src/a.go "package src // a" >/dev/null
	git burl approve TASK-001 >/dev/null
	submitted TASK-002 src/b.go "package src // b" >/dev/null
}

ids() { jq -r '[.tasks[].id] | sort | join(" ")' <<<"$output"; }

@test "status --json --open lists every task but DONE, and still counts DONE" {
	run git burl status --json --open
	assert_success
	[ "$(ids)" = "TASK-002 TASK-003" ]
	[ "$(jq -c .counts <<<"$output")" = '{"BLOCKED":0,"DOING":0,"DONE":1,"QA":1,"READY":1}' ]
	run git burl status --json
	[ "$(ids)" = "TASK-001 TASK-002 TASK-003" ]
}

@test "status --bucket lists those buckets, in any case, repeated or comma-separated" {
	run git burl status --json --bucket done
	[ "$(ids)" = "TASK-001" ]
	run git burl status --json --bucket QA --bucket ready
	[ "$(ids)" = "TASK-002 TASK-003" ]
	run git burl status --json --bucket qa,done
	[ "$(ids)" = "TASK-001 TASK-002" ]
	run git burl status --bucket qa
	assert_success
	assert_output_contains "TASK-002"
	refute_output_contains "TASK-003"
	assert_output_contains "READY 1  DOING 0  QA 1  DONE 1"
}

@test "status --since keeps the tasks changed since then" {
	run git burl status --json --since 1h
	[ "$(ids)" = "TASK-001 TASK-002 TASK-003" ]
	run git burl status --json --since "$(date -u -d '+1 day' +%Y-%m-%d)"
	[ "$(ids)" = "" ]
	[ "$(jq .counts.QA <<<"$output")" = 1 ]
}

@test "a bucket that is not one, --open with --bucket DONE, and a bad --since are refused (exit 1) with what would do" {
	run git burl status --bucket DONNE
	assert_failure 1
	assert_output_contains "DONNE is not a bucket: READY, DOING, QA, DONE or BLOCKED"
	run git burl status --open --bucket DONE
	assert_failure 1
	assert_output_contains "--open leaves DONE out"
	run git burl status --since yesterday
	assert_failure 1
	assert_output_contains "a duration (90m, 2h, 7d)"
}
