#!/usr/bin/env bats
# PRD 18.3 failure injection: a failed step leaves the task where it was,
# with its file, branches, worktrees and locks as they were before.

setup() {
	load helpers
	load lifecycle
	new_burl_repo
	git burl add "Jump" --affects src/jump.go >/dev/null
}

# unchanged_since_add: the state right after `add`, nothing claimed.
unchanged_since_add() {
	[ "$(bucket_of TASK-001)" = READY ] || { echo "TASK-001 is in $(bucket_of TASK-001)" >&2; return 1; }
	cmp "$(task_file TASK-001)" "$BATS_TEST_TMPDIR/task.before" || return 1
	[ -z "$(task_branches)" ] || { echo "branches left: $(task_branches)" >&2; return 1; }
	[ ! -e "$REPO/.worktrees/task-001-jump" ] || { echo "worktree directory left" >&2; return 1; }
	[ "$(git worktree list | wc -l)" -eq 2 ] || { git worktree list >&2; return 1; }
	[ -z "$(locks)" ] || { echo "locks left: $(locks)" >&2; return 1; }
	[ -z "$(git -C "$REPO/.burl" status --porcelain)" ] || { git -C "$REPO/.burl" status >&2; return 1; }
}

@test "claim with a failing git worktree add exits 3 and leaves no branch, worktree or lock" {
	cp "$(task_file TASK-001)" "$BATS_TEST_TMPDIR/task.before"
	BURL_FAIL=worktree-add run git burl claim TASK-001
	assert_failure 3
	assert_output_contains "git worktree add"
	assert_output_contains ".worktrees/task-001-jump"
	unchanged_since_add

	run git burl claim TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = DOING ]
}

@test "claim with a failing rename leaves the task file byte-identical in READY, no branch, worktree or lock" {
	cp "$(task_file TASK-001)" "$BATS_TEST_TMPDIR/task.before"
	BURL_FAIL=rename run git burl claim TASK-001
	assert_failure 1
	assert_output_contains ".burl/.workflow/READY/TASK-001-jump.md"
	refute_output_contains "rollback was incomplete"
	unchanged_since_add

	# The same with claim picking the task itself.
	BURL_FAIL=rename run git burl claim
	assert_failure 1
	unchanged_since_add

	run git burl claim
	assert_success
	[ "$(bucket_of TASK-001)" = DOING ]
}

@test "submit and reject with a failing rename leave the task where it was" {
	WT=$(claim_wt TASK-001)
	(cd "$WT" && commit_file src/jump.go "$(jump_go 'println(1)')")
	cp "$(task_file TASK-001)" "$BATS_TEST_TMPDIR/doing"
	BURL_FAIL=rename run git burl submit TASK-001
	assert_failure 1
	[ "$(bucket_of TASK-001)" = DOING ]
	cmp "$(task_file TASK-001)" "$BATS_TEST_TMPDIR/doing"

	git burl submit TASK-001 >/dev/null
	cp "$(task_file TASK-001)" "$BATS_TEST_TMPDIR/qa"
	BURL_FAIL=rename run git burl reject TASK-001 --reason "nope"
	assert_failure 1
	[ "$(bucket_of TASK-001)" = QA ]
	cmp "$(task_file TASK-001)" "$BATS_TEST_TMPDIR/qa"
	[ -z "$(locks)" ]
	[ -z "$(git -C .burl status --porcelain)" ]
}

@test "approve with a failing rename puts main back and keeps branch and worktree" {
	WT=$(submitted TASK-001 src/jump.go "$(jump_go 'println(1)')")
	sha=$(field TASK-001 submitted_sha)
	commit_file docs.txt "docs"
	main=$(git rev-parse main)

	BURL_FAIL=rename run git burl approve TASK-001
	assert_failure 1
	refute_output_contains "rollback was incomplete"
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(git rev-parse main)" = "$main" ]
	[ -z "$(git status --porcelain)" ]
	[ "$(git rev-parse task-001-jump)" = "$sha" ]
	[ -d "$WT" ]
	[ -z "$(locks)" ]

	run git burl approve TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(git rev-parse main^)" = "$main" ]
}

@test "approve with a failing build command leaves main unchanged and the task in QA" {
	WT=$(submitted TASK-001 src/jump.go "$(jump_go 'println(1)')")
	sha=$(field TASK-001 submitted_sha)
	commit_file docs.txt "docs"
	git push -q origin main
	main=$(git rev-parse main)
	set_config build_command '"echo FAIL: TestJump >&2; exit 1"'

	run git burl approve TASK-001
	assert_failure 2
	assert_output_contains "build_command failed"
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(git rev-parse main)" = "$main" ]
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$main" ]
	[ "$(git rev-parse task-001-jump)" = "$sha" ]
	[ -d "$WT" ]
	grep -q "FAIL: TestJump" "$(task_file TASK-001)"
	[ -z "$(locks)" ]
}

# A lock a live process holds (one a dead process left is cleared by the
# claim: lead_verbs.bats).
@test "a held task lock makes claim exit 4 naming the lock file" {
	hold_lock TASK-001 claim 20
	[ "$(locks)" = TASK-001.lock ]

	run git burl claim TASK-001
	assert_failure 4
	assert_output_contains "task is locked by another process"
	assert_output_contains ".burl/.workflow/locks/TASK-001.lock"
	assert_output_contains "git burl lock clear TASK-001 --force"
}

# hold_lock ID ACTION SECONDS: a live process of this host holds the task's
# lock for ACTION, and removes it after SECONDS.
hold_lock() {
	local lock=$REPO/.burl/.workflow/locks/$1.lock
	(sleep "$3"; rm -f "$lock") >/dev/null 2>&1 &
	printf '{"owner":"other","host":"%s","pid":%s,"created_at":"%s","action":"%s"}\n' \
		"$(uname -n)" "$!" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$2" >"$lock"
}

@test "a verb waits for a task lock a claim holds for a moment, but not for one another verb holds" {
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file src/jump.go "$(jump_go 'return')")
	hold_lock TASK-001 validate 2
	run git burl submit TASK-001
	assert_failure 4
	# Whole seconds: on a loaded machine the lock may be a second old.
	[[ "$output" =~ created\ [01]s\ ago\ by\ other ]] || { echo "$output" >&2; false; }
	[ "$(bucket_of TASK-001)" = DOING ]
	sleep 4
	# An automatic claim that lost the race holds the lock while it looks.
	hold_lock TASK-001 claim 2
	run git burl submit TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = QA ]
}
