#!/usr/bin/env bats
# DESIGN §27: git burl diff ID shows a task's change without reconstructing
# it from base_sha and branch: what its branch holds, what was submitted,
# what landed; git diff's options pass through, as argv.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	load lifecycle
	new_burl_repo
	set_config build_command ""
}

@test "diff of a DOING task is its branch past its base, with git diff's options and paths passed through" {
	git burl add "Docs" --affects-glob "docs/**" >/dev/null
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file docs/a.md "alpha" && commit_file docs/b.md "beta")
	# main moves on meanwhile: that is not the task's change.
	commit_file NEWS.md "unrelated"

	run git burl diff TASK-001
	assert_success
	assert_output_contains "+alpha"
	assert_output_contains "+beta"
	refute_output_contains "unrelated"
	[ "$output" = "$(git diff "$(field TASK-001 base_sha)" task-001-docs)" ]

	run git burl diff --stat TASK-001
	assert_success
	assert_output_contains "2 files changed, 2 insertions(+)"
	run git burl diff TASK-001 --name-only -- docs/b.md
	assert_success
	[ "$output" = "docs/b.md" ]
	# From a subdirectory, paths are the user's.
	mkdir -p docs
	run git -C docs burl diff TASK-001 --name-only -- b.md
	assert_success
	[ "$output" = "docs/b.md" ]

	run git burl diff TASK-001 --json
	assert_success
	[ "$(jq -r '[.ok, .task, .of, (.files | map(.path + ":" + (.added|tostring)) | join(","))] | join(" ")' <<<"$output")" = "true TASK-001 branch docs/a.md:1,docs/b.md:1" ]
	[ "$(jq -r .from <<<"$output")" = "$(field TASK-001 base_sha)" ]
}

@test "diff of a DONE task is the range that landed, after main moved under it" {
	git burl add "Docs" --affects-glob "docs/**" >/dev/null
	submitted TASK-001 docs/a.md "alpha" >/dev/null
	commit_file NEWS.md "landed before it"
	git push -q origin main
	git burl approve TASK-001 >/dev/null
	[ "$(bucket_of TASK-001)" = DONE ]
	run git burl diff TASK-001 --name-only
	assert_success
	[ "$output" = "docs/a.md" ]
	run git burl diff TASK-001 --json
	[ "$(jq -r .of <<<"$output")" = landed ]
	[ "$(jq -r .to <<<"$output")" = "$(git rev-parse main)" ]
	# --exit-code: git diff's own answer, 1 when there are differences.
	run git burl diff TASK-001 --quiet
	assert_failure 1
}

@test "diff of a QA task is what was submitted" {
	git burl add "Docs" --affects-glob "docs/**" >/dev/null
	submitted TASK-001 docs/a.md "alpha" >/dev/null
	run git burl diff TASK-001 --json
	assert_success
	[ "$(jq -r '.of + " " + .to' <<<"$output")" = "submitted $(field TASK-001 submitted_sha)" ]
}

@test "diff of a task never claimed says so; options reach git as argv, never through a shell" {
	git burl add "Later" >/dev/null
	run git burl diff TASK-001
	assert_failure 1
	assert_output_contains "git burl claim TASK-001"
	run git burl diff
	assert_failure 1
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file x.txt "x")
	run git burl diff TASK-001 '--src-prefix=$(touch pwned)/' '--dst-prefix=;touch pwned2;/'
	assert_success
	assert_output_contains '$(touch pwned)/x.txt'
	[ ! -e pwned ] && [ ! -e pwned2 ]
	run git burl diff TASK-001 --no-such-git-option
	assert_failure 3
}
