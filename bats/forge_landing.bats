#!/usr/bin/env bats
# DESIGN §17: with landing: pr, approve must never fast-forward main past
# the review the team asked for; until burl opens pull requests it refuses,
# and work merged on the forge is still accepted with --accept-landed.

setup() {
	load helpers
	load lifecycle
	new_burl_repo
}

landing_pr() {
	echo "landing: pr" >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: landing pr" -- .workflow/config.yaml
}

@test "approve with landing: pr refuses (exit 1) and leaves main and the task as they were" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	landing_pr
	main=$(git rev-parse main)

	run git burl approve TASK-001
	assert_failure 1
	assert_output_contains "landing: pr"
	assert_output_contains "--accept-landed"
	[ "$(git rev-parse main)" = "$main" ]
	[ "$(bucket_of TASK-001)" = QA ]

	run git burl approve --all
	assert_failure 1
	[ "$(git rev-parse main)" = "$main" ]
}

@test "a bad landing value names the key and the file" {
	echo "landing: push" >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: bad" -- .workflow/config.yaml
	run git burl status
	assert_failure
	assert_output_contains "landing"
}
