#!/usr/bin/env bats
# git burl approve --all (DESIGN §11): queue order, batched builds,
# bisection to the breaking task, conflicts rejected while the rest lands.

setup() {
	load helpers
	load lifecycle
	load queue
	queue_setup
}

@test "approve --all lands in queue order: priority critical→low, then submitted_at" {
	qa 1 low
	qa 2 critical
	qa 3 high
	sleep 1 # submitted_at has whole seconds
	qa 4 critical
	run git burl approve --all --json
	assert_success
	[ "$(jq -c '.' <<<"$output")" = '{"ok":true,"approved":["TASK-002","TASK-004","TASK-003","TASK-001"],"rejected":[]}' ]
	[ "$(main_subjects | tr '\n' ' ')" = "edit f2.txt edit f4.txt edit f3.txt edit f1.txt " ]
	for id in TASK-001 TASK-002 TASK-003 TASK-004; do [ "$(bucket_of $id)" = DONE ]; done
	[ -z "$(task_branches)" ]
	[ -z "$(locks)" ]
	# Main only fast-forwarded: no merge commit.
	[ -z "$(git rev-list --merges main)" ]
}

@test "a batch of four passing tasks is built once, not four times; human output has a line per task" {
	for n in 1 2 3 4; do qa "$n" medium; done
	run git burl approve --all
	assert_success
	[ "$(builds)" -eq 1 ]
	for id in TASK-001 TASK-002 TASK-003 TASK-004; do
		assert_output_contains "approved $id: main fast-forwarded to"
		[ "$(bucket_of $id)" = DONE ]
	done
	assert_output_contains "4 approved, 0 not approved, 1 build(s)"
	# Each QA report names the batch's build.
	grep -q -- "- build: pass" "$(task_file TASK-001)"
	git show main:f4.txt | grep -q "work 4"
}

@test "queue_batch splits the queue: five tasks with queue_batch 2 take three builds" {
	set_config queue_batch 2
	for n in 1 2 3 4 5; do qa "$n" medium; done
	run git burl approve --all --json
	assert_success
	[ "$(builds)" -eq 3 ]
	[ "$(jq -c '.approved' <<<"$output")" = '["TASK-001","TASK-002","TASK-003","TASK-004","TASK-005"]' ]
}

@test "queue_batch must be a whole number >= 1" {
	set_config queue_batch 0
	run git burl approve --all
	assert_failure 1
	assert_output_contains "queue_batch"
}

@test "one breaking task is isolated by bisection and rejected with the build output; the other three land" {
	qa 1 medium
	qa 2 medium
	qa 3 medium "BROKEN on purpose"
	qa 4 medium
	run git burl approve --all --json
	assert_failure 2
	[ "$(jq -c '.ok' <<<"$output")" = false ]
	[ "$(jq -c '.approved' <<<"$output")" = '["TASK-001","TASK-002","TASK-004"]' ]
	[ "$(jq -c '[.rejected[].id]' <<<"$output")" = '["TASK-003"]' ]
	[ "$(bucket_of TASK-003)" = READY ]
	[ "$(field TASK-003 qa_attempts)" = 1 ]
	report=$(sed -n '/^## QA Report/,$p' "$(task_file TASK-003)")
	[[ "$report" == *"build: FAIL"* ]]
	[[ "$report" == *"build: a file says BROKEN"* ]]
	# Fewer builds than one per task plus one: the top of four, two bisection
	# steps, then TASK-004 alone on the new main.
	[ "$(builds)" -eq 4 ]
	! git show main:f3.txt 2>/dev/null
	git show main:f4.txt | grep -q "work 4"
	# The rejected task's branch is back where it was submitted, nothing mid-rebase.
	wt=$(git worktree list --porcelain | awk '/^worktree .*task-003/ {print $2}')
	[ -n "$wt" ]
	[ ! -e "$(git -C "$wt" rev-parse --git-dir)/rebase-merge" ]
	[ -z "$(git -C "$wt" status --porcelain)" ]
	[ -z "$(locks)" ]
}

@test "a conflicting task is rejected (READY, qa_attempts+1, files in the report) while the others land" {
	set_config conflict_policy ignore
	git burl add "shared one" --affects shared.txt >/dev/null
	git burl add "shared two" --affects shared.txt >/dev/null
	submitted TASK-001 shared.txt "from one" >/dev/null
	wt2=$(submitted TASK-002 shared.txt "from two")
	sha2=$(field TASK-002 submitted_sha)
	qa 3 medium
	run git burl approve --all --json
	assert_failure 3
	[ "$(jq -c '.approved' <<<"$output")" = '["TASK-001","TASK-003"]' ]
	[ "$(jq -r '.rejected[0].id' <<<"$output")" = TASK-002 ]
	[[ "$(jq -r '.rejected[0].reason' <<<"$output")" == *"rebase conflict in shared.txt"* ]]
	[ "$(bucket_of TASK-002)" = READY ]
	[ "$(field TASK-002 qa_attempts)" = 1 ]
	report=$(sed -n '/^## QA Report/,$p' "$(task_file TASK-002)")
	[[ "$report" == *"- shared.txt"* ]]
	[ "$(git -C "$wt2" rev-parse HEAD)" = "$sha2" ]
	[ ! -e "$(git -C "$wt2" rev-parse --git-dir)/rebase-merge" ]
	git show main:f3.txt | grep -q "work 3"
	git show main:shared.txt | grep -q "from one"
}

@test "approve --all with nothing in QA succeeds and says so; an ID with --all is a usage error" {
	run git burl approve --all --json
	assert_success
	[ "$(jq -c '.' <<<"$output")" = '{"ok":true,"approved":[],"rejected":[]}' ]
	run git burl approve --all TASK-001
	assert_failure 1
}

@test "approve --all tells what happened in order: the approval before the rejection it conflicts with, and the reason names main's real commit" {
	set_config conflict_policy ignore
	git burl add "shared one" --affects shared.txt >/dev/null
	git burl add "shared two" --affects shared.txt >/dev/null
	submitted TASK-001 shared.txt "from one" >/dev/null
	submitted TASK-002 shared.txt "from two" >/dev/null
	main=$(git rev-parse --short=10 main)
	run git burl approve --all
	assert_failure 3
	first=$(grep -n "TASK-001" <<<"$output" | head -n 1 | cut -d: -f1)
	second=$(grep -n "TASK-002" <<<"$output" | head -n 1 | cut -d: -f1)
	[ "$first" -lt "$second" ]
	grep -q "rebase conflict onto main at $main with TASK-001 stacked before it" "$(task_file TASK-002)"
}

@test "a lone task whose build fails is not said to be bisected" {
	set_config build_command "'test ! -e broken.txt'"
	git burl add "breaks" --affects broken.txt >/dev/null
	submitted TASK-001 broken.txt "x" >/dev/null
	run git burl approve --all
	assert_failure 2
	assert_output_contains "build_command failed"
	refute_output_contains "bisected"
	! grep -q "bisected" "$(task_file TASK-001)" || false
}
