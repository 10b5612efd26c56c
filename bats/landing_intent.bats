#!/usr/bin/env bats
# A hand merge makes approve skip no gate (DESIGN §15, issue 22.4): approve
# finishes only an approve that recorded its intent before it moved main.
# Work that reached main any other way makes approve exit 2 naming the
# commits, doctor report landed_outside_burl, and the human choose
# `approve --accept-landed` (the gates run on it) or reject.

load helpers
load lifecycle
load queue

# hand_merged N CONTENT: task N in QA with fN.txt holding CONTENT, then
# merged into main by hand (as a "helpful" agent or a human would) and
# main pushed.
hand_merged() {
	qa "$1" medium "$2" || return 1
	git merge -q --no-ff -m "Merge task $1 by hand" "$(printf 'task-%03d' "$1")-task-$1" || return 1
	git push -q origin main
}

@test "a hand-merged task whose build fails: approve exits 2 naming the commits, runs no gate, records nothing; accept-landed runs the gates" {
	queue_setup
	hand_merged 1 "BROKEN on purpose"
	main_before=$(git rev-parse main)
	builds_before=$(builds)
	run git burl approve TASK-001
	assert_failure 2
	assert_output_contains "landed in main outside burl"
	assert_output_contains "Merge task 1 by hand"
	assert_output_contains "edit f1.txt"
	assert_output_contains "git burl approve --accept-landed TASK-001"
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(builds)" = "$builds_before" ]
	! all_events | jq -e 'select(.action == "approve" and .task == "TASK-001")' >/dev/null
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$main_before" ]
	# doctor names it and leaves it to the human: repair does not record it.
	run git burl doctor --json
	assert_failure 2
	[ "$(jq -r '.findings[] | select(.kind == "landed_outside_burl") | .task' <<<"$output")" = TASK-001 ]
	[ "$(jq -r '.findings[] | select(.kind == "landed_outside_burl") | .repairable' <<<"$output")" = false ]
	git burl doctor --repair --force >/dev/null || true
	[ "$(bucket_of TASK-001)" = QA ]
	# The human accepts it: the gates run on main's tree, and the build fails.
	run git burl approve --accept-landed TASK-001
	assert_failure 2
	assert_output_contains "build_command failed"
	[ "$(bucket_of TASK-001)" = QA ]
	grep -q "accept-landed FAIL" "$(task_file TASK-001)"
	[ "$(builds)" -gt "$builds_before" ]
	# main fixed, accepted: DONE, with the gates in the report and the event.
	commit_file f1.txt "fixed" "fix the hand merge"
	git push -q origin main
	run git burl approve --accept-landed TASK-001 --json
	assert_success
	[ "$(jq -r .accepted_landed <<<"$output")" = true ]
	[ "$(bucket_of TASK-001)" = DONE ]
	grep -q "accepted as it landed in main outside burl" "$(task_file TASK-001)"
	all_events | jq -e 'select(.action == "approve" and .task == "TASK-001" and .details.accepted_landed == true)' >/dev/null
	run git burl doctor
	assert_success
}

@test "a hand-merged task can be rejected instead; approve --all does not land it and lands the rest" {
	queue_setup
	hand_merged 1 "work 1"
	qa 2 medium
	run git burl approve --all --json
	assert_failure 2
	[ "$(jq -c '.approved' <<<"$output")" = '["TASK-002"]' ]
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(bucket_of TASK-002)" = DONE ]
	run git burl reject TASK-001 --reason "merged by hand without review"
	assert_success
	[ "$(bucket_of TASK-001)" = READY ]
	# accept-landed of work that is not in main is refused.
	git burl add "not merged" --affects f3.txt >/dev/null
	submitted TASK-003 f3.txt "work 3" >/dev/null
	run git burl approve --accept-landed TASK-003
	assert_failure 1
	assert_output_contains "not in main"
	run git burl approve --all --accept-landed
	assert_failure 1
}
