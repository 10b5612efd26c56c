#!/usr/bin/env bats
# DESIGN §22 through a real Gitea: a pull request the forge merges (squash,
# rebase, a merge commit) gets its landing record when git burl sync
# settles it, on the commits git recognised, and verifies ✓ in a fresh
# clone with the network gone.

setup_file() {
	load forge
	forge_setup_file
}

teardown_file() {
	load forge
	forge_teardown_file
}

setup() {
	load helpers
	load lifecycle
	load forge
	load verify
	new_gitea_repo
}

@test "pull requests merged by squash, rebase and merge commit verify ✓ offline, each record on the commits git recognised" {
	for n in 1 2 3; do
		git burl add "Part $n" --affects "src/part$n.go" >/dev/null
		wt=$(claim_wt "$(printf 'TASK-%03d' "$n")")
		# Two commits: a squash is then neither of them.
		(cd "$wt" && commit_file "src/part$n.go" "package src // part $n" && commit_file "src/part$n.go" "package src // part $n, done" && git burl submit >/dev/null)
	done
	run git burl approve --all
	assert_success
	gitea_merge 1 squash
	gitea_merge 2 rebase
	gitea_merge 3 merge
	run git burl sync
	assert_success
	for n in 1 2 3; do assert_output_contains "TASK-00$n pull request #$n: merged"; done
	assert_output_contains "refs/notes/burl"
	git fetch -q origin
	main=$(git rev-parse origin/main)

	# The squash: one commit; the rebase: both rewritten commits; the merge:
	# the merge commit (the request's own commits are off the first-parent
	# line).
	squash=$(pr_field 1 merge_commit_sha)
	note_of "$squash" | jq -e --arg c "$squash" '.landing.kind == "pr" and .landing.how == "squash" and .landing.pr.number == 1 and .commits == [$c]'
	note_of "$main" | jq -e --arg c "$main" '.landing.how == "ancestry" and .landing.pr.number == 3 and .commits == [$c] and .gates.scope.result == "pass"'
	rebased=$(all_events | jq -r 'select(.action == "pr_merged" and .task == "TASK-002") | .details.merged_sha')
	note_of "$rebased" | jq -e --arg c "$rebased" --arg p "$(git rev-parse "$rebased~")" '.landing.how == "cherry" and .commits == [$p, $c]'
	# Approve's gates and approver, recorded when it opened the request;
	# the forge merged it before burl saw its checks pass (checks: required).
	note_of "$squash" | jq -e '.approved_by == "tester@bats" and (.gates.scope.inputs_sha256 | length) == 64 and .gates.checks.result == "not_seen"'

	verified_clone "$BATS_TEST_TMPDIR/fresh" "${GITEA_URL}$GITEA_REPO.git"
	run git burl verify
	assert_success
	assert_output_contains "TASK-001 Part 1 — pr;"
	assert_output_contains "TASK-002 Part 2 — pr;"
	assert_output_contains "TASK-003 Part 3 — pr;"
	assert_output_contains "4 landed by burl, 0 not landed by burl, 0 whose record does not match"
}
