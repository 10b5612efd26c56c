#!/usr/bin/env bats
# PRD 14.5 and 11.6: reject keeps the work for the next attempt; block,
# unblock and release move tasks out of the way and back.

setup() {
	load helpers
	load lifecycle
	new_burl_repo
}

@test "reject keeps branch and worktree; re-claim reuses them with base_sha unchanged and shows the reason" {
	git burl add "Jump" --affects src/jump.go >/dev/null
	WT=$(submitted TASK-001 src/jump.go "$(jump_go 'println(1)')")
	head=$(git -C "$WT" rev-parse HEAD)
	base=$(field TASK-001 base_sha)

	run git burl reject TASK-001
	assert_failure 1
	assert_output_contains "--reason"
	[ "$(bucket_of TASK-001)" = QA ]

	run git burl reject TASK-001 --reason "jump height is hard-coded; read it from config"
	assert_success
	[ "$(bucket_of TASK-001)" = READY ]
	[ "$(field TASK-001 qa_attempts)" = 1 ]
	[ "$(field TASK-001 priority)" = high ]
	[ "$(field TASK-001 submitted_sha)" = null ]
	grep -q "Reason: jump height is hard-coded; read it from config" "$(task_file TASK-001)"
	[ -d "$WT" ]
	[ "$(git rev-parse task-001-jump)" = "$head" ]

	# main moves on meanwhile: a fresh claim would have a newer base.
	commit_file README.md "# demo, later"
	git push -q origin main

	run git burl claim TASK-001
	assert_success
	assert_output_contains "reusing branch task-001-jump"
	assert_output_contains "jump height is hard-coded; read it from config"
	[ "${lines[${#lines[@]}-1]}" = "$WT" ]
	[ "$(field TASK-001 base_sha)" = "$base" ]
	[ "$(field TASK-001 branch)" = task-001-jump ]
	[ "$(git -C "$WT" rev-parse HEAD)" = "$head" ]
	[ "$(bucket_of TASK-001)" = DOING ]

	run git burl claim TASK-001
	assert_failure 1
	assert_output_contains "TASK-001 is in DOING"
}

@test "reject at qa_max_attempts moves the task to BLOCKED" {
	set_config qa_max_attempts 2
	git burl add "Jump" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println(1)')" >/dev/null

	git burl reject TASK-001 --reason "first try" >/dev/null
	[ "$(bucket_of TASK-001)" = READY ]
	git burl claim TASK-001 >/dev/null
	git burl submit TASK-001 >/dev/null

	run git burl reject TASK-001 --reason "second try"
	assert_success
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ "$(field TASK-001 qa_attempts)" = 2 ]
	[[ "$(field TASK-001 blocked_reason)" == *"max QA attempts reached (2)"* ]]
	[ -d "$REPO/.worktrees/task-001-jump" ]

	run git burl claim TASK-001
	assert_failure 1
	assert_output_contains "TASK-001 is in BLOCKED"
	assert_output_contains "git burl unblock TASK-001"
}

@test "block needs a reason; unblock refuses while a dependency is not DONE" {
	git burl add "API" --affects api.txt >/dev/null
	git burl add "Client" --affects client.txt --depends-on TASK-001 >/dev/null

	run git burl block TASK-002
	assert_failure 1
	assert_output_contains "--reason"
	run git burl block TASK-002 --reason "waiting for the API design"
	assert_success
	[ "$(bucket_of TASK-002)" = BLOCKED ]
	[ "$(field TASK-002 blocked_reason)" = "waiting for the API design" ]

	run git burl unblock TASK-002
	assert_failure 1
	assert_output_contains "TASK-001"
	assert_output_contains "not DONE"
	[ "$(bucket_of TASK-002)" = BLOCKED ]
	[ -z "$(git -C .burl status --porcelain)" ]
	[ -z "$(locks)" ]

	submitted TASK-001 api.txt "v1" >/dev/null
	git burl approve TASK-001 >/dev/null
	run git burl unblock TASK-002
	assert_success
	[ "$(bucket_of TASK-002)" = READY ]
	[ "$(field TASK-002 blocked_reason)" = null ]

	run git burl log --task TASK-002
	assert_output_contains "block"
	assert_output_contains "unblock"
}

@test "block a DOING task keeps its worktree; unblock and claim pick the work up again" {
	git burl add "Jump" --affects src/jump.go >/dev/null
	WT=$(claim_wt TASK-001)
	(cd "$WT" && commit_file src/jump.go "$(jump_go 'println(1)')")
	head=$(git -C "$WT" rev-parse HEAD)

	git burl block TASK-001 --reason "needs a design decision" >/dev/null
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ -d "$WT" ]
	git burl unblock TASK-001 >/dev/null
	[ "$(bucket_of TASK-001)" = READY ]
	[ "$(claim_wt TASK-001)" = "$WT" ]
	[ "$(git -C "$WT" rev-parse HEAD)" = "$head" ]
}

@test "release gives a DOING task back to READY, keeping branch and worktree" {
	git burl add "Jump" --affects src/jump.go >/dev/null
	WT=$(claim_wt TASK-001)
	(cd "$WT" && commit_file src/jump.go "$(jump_go 'println(1)')")
	head=$(git -C "$WT" rev-parse HEAD)

	run git burl release TASK-001 --reason "agent died"
	assert_success
	[ "$(bucket_of TASK-001)" = READY ]
	[ "$(field TASK-001 assigned_to)" = null ]
	[ -d "$WT" ]
	[ "$(git rev-parse task-001-jump)" = "$head" ]

	run git burl release TASK-001
	assert_failure 1
	assert_output_contains "TASK-001 is in READY"

	run git burl claim
	assert_success
	assert_output_contains "reusing branch task-001-jump"
	[ "${lines[${#lines[@]}-1]}" = "$WT" ]
	run git burl submit TASK-001
	assert_success
}
