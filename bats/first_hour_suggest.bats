#!/usr/bin/env bats
# status's suggest is never refused for a reason status could know: a
# workflow driven through overlap, unmet dependencies, max_parallel, a
# failed validate, a rejection, BLOCKED and a stalled task runs, in each
# state, exactly what `status --json` suggests.

load helpers
load lifecycle

setup() {
	new_burl_repo
	set_config max_parallel 2
	set_config conflict_policy fail
}

@test "in every state, what status --json suggests is never refused" {
	git burl add "A" --affects a.txt --verify "grep -q good a.txt" >/dev/null
	git burl add "A again" --affects a.txt >/dev/null
	git burl add "C after A" --affects c.txt --depends-on TASK-001 >/dev/null
	git burl add "D" --affects d.txt >/dev/null
	git burl add "E" --affects e.txt >/dev/null

	follow TASK-001
	[ "$(bucket_of TASK-001)" = DOING ]
	# Overlap with a DOING task, an unmet dependency.
	waiting TASK-002 "overlaps DOING TASK-001"
	run git burl claim TASK-002
	assert_failure 4
	waiting TASK-003 "waits for TASK-001"
	run git burl claim TASK-003
	assert_failure 4
	every_suggest_is_sound

	follow TASK-004
	# max_parallel reached: nothing READY is claimable now; exit 4, per task.
	waiting TASK-005 "max_parallel is 2"
	run git burl claim
	assert_failure 4
	assert_output_contains "TASK-002: scope overlaps DOING TASK-001"
	assert_output_contains "TASK-003: waits for TASK-001"
	run git burl claim TASK-005
	assert_failure 4
	every_suggest_is_sound

	# A failed validate: status then suggests reject, not approve.
	(cd "$(git burl worktree TASK-001)" && commit_file a.txt bad)
	follow TASK-001
	[ "$(bucket_of TASK-001)" = QA ]
	follow TASK-001 2
	[ "$(bucket_of TASK-001)" = QA ]
	[[ "$(suggest_of TASK-001)" == "git burl reject TASK-001 "* ]]
	follow TASK-001
	# Rejected: back in READY, claimable again (one DOING slot is free).
	[ "$(bucket_of TASK-001)" = READY ]
	follow TASK-001
	(cd "$(git burl worktree TASK-001)" && commit_file a.txt good)
	follow TASK-001
	follow TASK-001
	[ "$(bucket_of TASK-001)" = DONE ]
	every_suggest_is_sound

	# The dependency is DONE and the overlap gone: both claimable again.
	follow TASK-003
	# DOING without a commit: submit would refuse it.
	waiting TASK-004 "first commit"
	waiting TASK-002 "max_parallel"
	(cd "$(git burl worktree TASK-004)" && commit_file d.txt done)
	follow TASK-004
	[ "$(bucket_of TASK-004)" = QA ]
	follow TASK-004
	[ "$(bucket_of TASK-004)" = DONE ]

	# BLOCKED: unblock when its dependencies are DONE, else it waits.
	git burl block TASK-005 --reason "needs a design" >/dev/null
	follow TASK-005
	[ "$(bucket_of TASK-005)" = READY ]
	git burl add "F after C" --affects f.txt --depends-on TASK-003 >/dev/null
	git burl block TASK-006 --reason "parked" >/dev/null
	waiting TASK-006 "waits for TASK-003"
	run git burl unblock TASK-006
	[ "$status" -ne 0 ]
	every_suggest_is_sound

	# Stalled: a DOING task with no activity for lock_stale_minutes.
	wt=$(git burl worktree TASK-003)
	then="@$(($(date +%s) - 10800)) +0000"
	(cd "$wt" && GIT_COMMITTER_DATE="$then" GIT_AUTHOR_DATE="$then" commit_file c.txt work)
	edit_task TASK-003 started_at "$(date -u -d '3 hours ago' +%Y-%m-%dT%H:%M:%SZ)"
	[ "$(git burl status --json | jq -r '.tasks[] | select(.id == "TASK-003") | .stalled')" = true ]
	[ "$(suggest_of TASK-003)" = "git burl release TASK-003" ]
	follow TASK-003
	[ "$(bucket_of TASK-003)" = READY ]
	every_suggest_is_sound
}

@test "claim with no ID: exit 1 only when READY is empty, 4 while tasks wait" {
	run git burl claim
	assert_failure 1
	assert_output_contains "Nothing to claim"
	git burl add "A" --affects a.txt >/dev/null
	git burl add "B after A" --affects b.txt --depends-on TASK-001 >/dev/null
	git burl claim TASK-001 >/dev/null
	run git burl claim
	assert_failure 4
	assert_output_contains "Nothing to claim now"
	assert_output_contains "TASK-002: waits for TASK-001 to be DONE"
	run git burl claim --json
	assert_failure 4
	[ "$(jq -r .error.kind <<<"$output")" = lock ]
}

@test "claiming a DOING task says who holds it and where its worktree is" {
	git burl add "A" --affects a.txt >/dev/null
	wt=$(claim_wt TASK-001)
	run env BURL_ACTOR=someone@else git burl claim TASK-001
	assert_failure 1
	assert_output_contains "TASK-001 is in DOING, claimed by tester@bats"
	assert_output_contains "its worktree is $wt"
	assert_output_contains "git burl release TASK-001"
}
