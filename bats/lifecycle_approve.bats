#!/usr/bin/env bats
# PRD 14.4 and DESIGN §4, §9: approve rebases, fast-forwards main without
# ever switching or dirtying the user's worktree, and turns a conflict into
# a deterministic rejection that leaves main, origin and the branch as they were.

setup() {
	load helpers
	load lifecycle
	new_burl_repo
}

@test "approve conflict: exit 3 naming the file, task back in READY, main, origin and branch unchanged" {
	set_config conflict_policy ignore
	git burl add "Jump high" --affects src/jump.go >/dev/null
	git burl add "Jump far" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	WT=$(submitted TASK-002 src/jump.go "$(jump_go 'println("far")')")
	sha=$(field TASK-002 submitted_sha)
	git burl approve TASK-001 >/dev/null
	git push -q origin main
	main=$(git rev-parse main)
	origin=$(git ls-remote origin refs/heads/main | cut -f1)

	run git burl approve TASK-002
	assert_failure 3
	assert_output_contains "Cannot approve TASK-002: rebase conflict"
	assert_output_contains "src/jump.go"
	first=$output

	[ "$(bucket_of TASK-002)" = READY ]
	[ "$(field TASK-002 qa_attempts)" = 1 ]
	report=$(sed -n '/^## QA Report/,$p' "$(task_file TASK-002)")
	[[ "$report" == *"rebase conflict"* ]]
	[[ "$report" == *"- src/jump.go"* ]]
	[ "$(git rev-parse main)" = "$main" ]
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$origin" ]
	[ "$(git rev-parse task-002-jump-far)" = "$sha" ]
	[ "$(git -C "$WT" rev-parse HEAD)" = "$sha" ]
	gitdir=$(git -C "$WT" rev-parse --git-dir)
	[ ! -e "$gitdir/rebase-merge" ]
	[ ! -e "$gitdir/rebase-apply" ]
	[ -z "$(git -C "$WT" status --porcelain)" ]
	[ -z "$(git status --porcelain)" ]
	[ -z "$(locks)" ]
	run git burl log --task TASK-002 --action reject
	assert_output_contains "rebase conflict"

	# The same conflict reads the same way every time.
	git burl claim TASK-002 >/dev/null
	git burl submit TASK-002 >/dev/null
	run git burl approve TASK-002
	assert_failure 3
	[ "$(printf '%s\n' "$output" | sed 's/qa_attempts [0-9]*/qa_attempts N/')" = "$(printf '%s\n' "$first" | sed 's/qa_attempts [0-9]*/qa_attempts N/')" ]
	[ "$(field TASK-002 qa_attempts)" = 2 ]
}

@test "after a conflict the next worker rebases onto main, resolves, and the task is approved" {
	set_config conflict_policy ignore
	git burl add "Jump high" --affects src/jump.go --affects docs/jump.md >/dev/null
	git burl add "Jump far" --affects src/jump.go >/dev/null
	WA=$(claim_wt TASK-001)
	(cd "$WA" && commit_file docs/jump.md "# Jumping" && commit_file src/jump.go "$(jump_go 'println("high")')")
	git burl submit TASK-001 >/dev/null
	WB=$(submitted TASK-002 src/jump.go "$(jump_go 'println("far")')")
	git burl approve TASK-001 >/dev/null
	run git burl approve TASK-002
	assert_failure 3

	# What the fix line says: claim, rebase onto main, resolve, continue.
	[ "$(claim_wt TASK-002)" = "$WB" ]
	cd "$WB"
	run git rebase main
	[ "$status" -ne 0 ]
	printf '%s\n' "$(jump_go 'println("high", "far")')" >src/jump.go
	git add src/jump.go
	GIT_EDITOR=true git rebase --continue >/dev/null 2>&1
	run git burl submit
	assert_success
	run git burl validate TASK-002
	assert_success
	assert_output_contains "scope pass, stubs pass"
	cd "$REPO"
	run git burl approve TASK-002
	assert_success
	[ "$(bucket_of TASK-002)" = DONE ]
	grep -q 'println("high", "far")' src/jump.go
	[ -z "$(git rev-list --merges main)" ]
}

@test "approve refuses a task branch that moved after submit" {
	git burl add "Jump" --affects src/jump.go >/dev/null
	WT=$(submitted TASK-001 src/jump.go "$(jump_go 'println(1)')")
	main=$(git rev-parse main)
	(cd "$WT" && commit_file src/jump.go "$(jump_go 'println(2)')")

	run git burl approve TASK-001
	assert_failure 1
	assert_output_contains "task-001-jump is at"
	assert_output_contains "submitted at"
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(git rev-parse main)" = "$main" ]
}

@test "approve with main checked out and dirty exits 3 and changes nothing" {
	git burl add "Jump" --affects src/jump.go >/dev/null
	WT=$(submitted TASK-001 src/jump.go "$(jump_go 'println(1)')")
	sha=$(field TASK-001 submitted_sha)
	# main gained a commit since the claim, so approve has to rebase.
	commit_file docs.txt "docs"
	main=$(git rev-parse main)
	printf 'my unsaved edit\n' >>README.md

	run git burl approve TASK-001
	assert_failure 3
	assert_output_contains "main is checked out in $(real "$REPO") with uncommitted changes"
	assert_output_contains "README.md"
	[ "$(git rev-parse main)" = "$main" ]
	[ "$(tail -n 1 README.md)" = "my unsaved edit" ]
	[ "$(git status --porcelain)" = " M README.md" ]
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(git rev-parse task-001-jump)" = "$sha" ]
	[ -z "$(git -C "$WT" status --porcelain)" ]
	[ -z "$(locks)" ]

	git checkout -q -- README.md
	run git burl approve TASK-001
	assert_success
	[ "$(git rev-parse main^)" = "$main" ]
	[ -z "$(git rev-list --merges "$main..main")" ]
}

@test "approve advances main with update-ref when main is checked out nowhere" {
	git burl add "Jump" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println(1)')" >/dev/null
	sha=$(field TASK-001 submitted_sha)
	git switch -q -c experiment
	commit_file scratch.txt "mine"
	mine=$(git rev-parse HEAD)

	run git burl approve TASK-001
	assert_success
	[ "$(git rev-parse main)" = "$sha" ]
	[ "$(git symbolic-ref --short HEAD)" = experiment ]
	[ "$(git rev-parse HEAD)" = "$mine" ]
	[ -z "$(git status --porcelain)" ]
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "push_main_on_approve pushes main to origin" {
	set_config push_main_on_approve true
	git burl add "Jump" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println(1)')" >/dev/null
	sha=$(field TASK-001 submitted_sha)

	run git burl approve TASK-001
	assert_success
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$sha" ]
	[ "$(git rev-parse main)" = "$sha" ]
	[ "$(field TASK-001 completed_at)" != null ]
}

@test "approve run from inside the task's worktree says the shell's folder is gone and where to go; the next command says so too" {
	git burl add "Inside" --affects src/inside.go >/dev/null
	wt=$(submitted TASK-001 src/inside.go "package src")
	cd "$wt"
	run git burl approve TASK-001
	assert_success
	assert_output_contains "this shell stands in $wt, which approve just removed"
	assert_output_contains "cd $REPO"
	run git burl status
	assert_failure 1
	assert_output_contains "the current directory no longer exists"
	refute_output_contains "Reason:  is not"
	cd "$REPO"
}
