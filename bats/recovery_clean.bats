#!/usr/bin/env bats
# git burl clean: a dry run unless --yes; removes DONE tasks' worktrees and
# branches and orphans; never work that main lacks or uncommitted changes
# unless --force; never anything of a live task.

load helpers

has_branch() { git rev-parse -q --verify "refs/heads/$1" >/dev/null; }
no_branch() { ! has_branch "$1"; }

@test "clean lists, removes with --yes, and keeps unmerged or dirty leftovers unless --force" {
	new_burl_repo
	git burl add "Done one" --affects-glob 'src/**' >/dev/null
	git burl add "Live one" >/dev/null
	git burl claim TASK-001 >/dev/null
	(cd .worktrees/task-001-done-one && commit_file src/a.go 'package src' "work on TASK-001")
	git burl submit TASK-001 >/dev/null
	# An approve killed after the merge, finished by doctor: TASK-001 is
	# DONE and its worktree and branch are left for clean.
	run env BURL_CRASH_AFTER=approve:merge git burl approve TASK-001
	[ "$status" -eq 137 ]
	git burl doctor --repair --force >/dev/null
	[ "$(bucket_of TASK-001)" = DONE ]
	git burl claim TASK-002 >/dev/null
	git worktree add -q .worktrees/task-009-ghost -b task-009-ghost
	git branch task-010-merged main
	git branch task-011-wip main
	git -C .worktrees/task-009-ghost commit -q --allow-empty -m "ghost's own commit"
	git worktree add -q .worktrees/task-012-dirty -b task-012-dirty
	printf 'scratch\n' >.worktrees/task-012-dirty/scratch.txt
	before=$(git rev-parse burl)

	run git burl clean
	assert_success
	assert_output_contains "Would remove:"
	assert_output_contains "worktree .worktrees/task-001-done-one  (TASK-001 is DONE)"
	assert_output_contains "task-009-ghost  (no task): it holds 1 commit(s) main lacks"
	[ -d .worktrees/task-001-done-one ]
	has_branch task-001-done-one
	has_branch task-010-merged
	[ "$(git rev-parse burl)" = "$before" ]

	run git burl clean --yes --json
	assert_success
	[ "$(jq -r '[.items[] | select(.remove) | .name] | sort | join(" ")' <<<"$output")" = \
		".worktrees/task-001-done-one .worktrees/task-009-ghost task-001-done-one task-010-merged task-011-wip" ]
	[ ! -e .worktrees/task-001-done-one ]
	[ ! -e .worktrees/task-009-ghost ]
	no_branch task-001-done-one
	no_branch task-010-merged
	no_branch task-011-wip
	has_branch task-009-ghost
	[ -f .worktrees/task-012-dirty/scratch.txt ]
	# The live task keeps everything.
	[ -d .worktrees/task-002-live-one ]
	has_branch task-002-live-one
	[ "$(git -C .burl show "HEAD:$(event_shard)" | tail -n 1 | jq -r .action)" = clean ]
	[ -z "$(git -C .burl status --porcelain)" ]

	run git burl clean --yes --force
	assert_success
	no_branch task-009-ghost
	no_branch task-012-dirty
	[ ! -e .worktrees/task-012-dirty ]
	[ -d .worktrees/task-002-live-one ]
	has_branch task-002-live-one
	run git burl doctor
	assert_success
	run git burl clean
	assert_success
	assert_output_contains "Nothing to clean."
}

@test "clean in the clone that did the work removes a branch approved, rebased, from another clone" {
	new_burl_repo
	set_config push_task_branch_on_submit true
	set_config push_main_on_approve true
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git burl claim TASK-001 >/dev/null
	(cd .worktrees/task-001-feature && commit_file src/a.go 'package src' "the work")
	git burl submit TASK-001 >/dev/null
	git burl sync --push >/dev/null
	# QA approves in another clone, after main moved: the work lands rebased.
	QA="$BATS_TEST_TMPDIR/qa"
	clone_repo "$QA"
	(cd "$QA" && git burl init >/dev/null && commit_file NOTES 'main moved' && git push -q origin main &&
		git burl approve TASK-001 >/dev/null && git burl sync --push >/dev/null)
	git burl sync --pull >/dev/null
	[ "$(bucket_of TASK-001)" = DONE ]
	run git burl clean --yes
	assert_success
	refute_output_contains "Would keep"
	no_branch task-001-feature
	[ ! -e .worktrees/task-001-feature ]
}

@test "clean keeps a branch whose only commit main lacks is a merge carrying new content (git cherry skips merges)" {
	new_burl_repo
	git branch side main
	git switch -q side
	commit_file side.txt 'side work' "side work"
	git switch -q main
	git switch -q -c task-013-merge main
	git merge -q --no-ff --no-commit side
	printf 'content only the merge has\n' >merge-only.txt
	git add merge-only.txt
	git commit -q -m "merge side, with content of its own"
	git switch -q main
	git merge -q --ff-only side
	git branch -D -q side
	# main has side's commit; the merge (and merge-only.txt) only the branch.
	[ -z "$(git cherry main task-013-merge | grep '^+')" ]
	run git burl clean --yes
	assert_success
	has_branch task-013-merge
	assert_output_contains "task-013-merge"
}
