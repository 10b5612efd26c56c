#!/usr/bin/env bats
# DESIGN §17: with landing: pr, approve must never fast-forward main past
# the review the team asked for, and the forge's settings are trusted like
# commands (DESIGN §16). forge_gitea.bats drives the whole loop against a
# real Gitea.

setup() {
	load helpers
	load lifecycle
	new_burl_repo
}

landing_pr() {
	echo "landing: pr" >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: landing pr" -- .workflow/config.yaml
}

@test "landing: pr on a remote that is no forge's repository says so (exit 1) and leaves main and the task as they were" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	landing_pr
	main=$(git rev-parse main)

	run git burl approve TASK-001
	assert_failure 1
	assert_output_contains "cannot tell the forge's repository from the remote URL"
	assert_output_contains "forge_url"
	[ "$(git rev-parse main)" = "$main" ]
	[ "$(git rev-parse origin/main)" = "$main" ]
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(git rev-parse task-001-jump-high)" = "$(field TASK-001 submitted_sha)" ]
	[ -z "$(locks)" ]

	run git burl approve --all
	assert_failure 1
	[ "$(git rev-parse main)" = "$main" ]
}

@test "a forge_url pushed to the workflow branch is not sent the token until it is trusted here" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	printf 'landing: pr\nforge: gitea\nforge_url: https://forge.invalid/\n' >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: landing pr" -- .workflow/config.yaml
	export BURL_FORGE_TOKEN=secret-token-value

	run git burl approve TASK-001
	assert_failure
	assert_output_contains "forge_url"
	assert_output_contains "git burl trust"
	[ "$(bucket_of TASK-001)" = QA ]
	run git burl trust --json </dev/null
	assert_output_contains "https://forge.invalid"
}

@test "a bad landing value names the key and the file" {
	echo "landing: push" >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: bad" -- .workflow/config.yaml
	run git burl status
	assert_failure
	assert_output_contains "landing"
}

@test "a bad pr_closed value names the file, the line and the values it takes" {
	echo "pr_closed: reopen" >>"$REPO/.burl/.workflow/config.yaml"
	line=$(wc -l <"$REPO/.burl/.workflow/config.yaml")
	git -C "$REPO/.burl" commit -q -m "config: bad" -- .workflow/config.yaml
	run git burl status
	assert_failure
	assert_output_contains "config.yaml:$line: pr_closed"
	assert_output_contains "blocked"
	assert_output_contains "ready"
}
