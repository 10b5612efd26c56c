#!/usr/bin/env bats
# PRD 18.2: the happy path, and how `claim` picks and reports a task.

setup() {
	load helpers
	load lifecycle
	new_burl_repo
}

@test "happy path: claim, commit, submit, validate, approve ends in DONE with main fast-forwarded" {
	git burl add "Implement jump" --affects src/jump.go >/dev/null
	base=$(git rev-parse main)

	run git burl claim TASK-001
	assert_success
	wt=${lines[${#lines[@]}-1]}
	[ "$wt" = "$(real "$REPO")/.worktrees/task-001-implement-jump" ]
	[ "$(git -C "$wt" symbolic-ref --short HEAD)" = task-001-implement-jump ]
	[ "$(bucket_of TASK-001)" = DOING ]
	[ "$(field TASK-001 base_sha)" = "$base" ]
	[ "$(field TASK-001 branch)" = task-001-implement-jump ]
	[ "$(field TASK-001 assigned_to)" = tester@bats ]

	cd "$wt"
	commit_file src/jump.go "$(jump_go 'println("jump")')"
	head=$(git rev-parse HEAD)
	run git burl submit TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(field TASK-001 submitted_sha)" = "$head" ]

	cd "$REPO"
	run git burl validate TASK-001
	assert_success
	run git burl approve TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(field TASK-001 completed_at)" != null ]

	# main moved forward to exactly the submitted work, without a merge commit.
	[ "$(git rev-parse main)" = "$head" ]
	[ "$(git rev-parse HEAD)" = "$head" ]
	[ -z "$(git rev-list --merges "$base..main")" ]
	grep -q 'println("jump")' src/jump.go
	[ -z "$(git status --porcelain)" ]

	# The worktree and the branch are gone; the workflow state is committed.
	[ ! -e "$wt" ]
	run git worktree list
	refute_output_contains task-001
	[ -z "$(task_branches)" ]
	[ -z "$(git -C .burl status --porcelain)" ]
	[ -z "$(locks)" ]

	run git burl log --task TASK-001
	assert_success
	[ "$(printf '%s\n' "$output" | awk '{ printf "%s ", $2 }')" = "add claim submit validate approve " ]
}

@test "claim prints the worktree path as its last stdout line; --json is one JSON document" {
	git burl add "One" --affects one.txt >/dev/null
	git burl add "Two" --affects two.txt >/dev/null

	out=$(git burl claim TASK-001 2>/dev/null)
	wt=$(printf '%s\n' "$out" | tail -n 1)
	[ "$wt" = "$(real "$REPO")/.worktrees/task-001-one" ]
	[ -d "$wt" ]

	out=$(git burl claim --json TASK-002 2>/dev/null)
	[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ]
	[[ "$out" == '{"ok":true,'*'}' ]]
	[[ "$out" == *"\"worktree\":\"$(real "$REPO")/.worktrees/task-002-two\""* ]]
	[[ "$out" == *'"bucket":"DOING"'* ]]
	[[ "$out" == *'"id":"TASK-002"'* ]]

	# A failure is one JSON document too, with the exit code of its kind.
	run git burl claim --json TASK-002
	assert_failure 1
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == '{"ok":false,"error":{"kind":"user"'* ]]
}

@test "claim with no ID takes priority, then created, then ID" {
	set_config max_parallel 0
	git burl add "Low" --priority low --affects a.txt >/dev/null
	git burl add "Medium late" --priority medium --affects b.txt >/dev/null
	git burl add "Medium early" --priority medium --affects c.txt >/dev/null
	git burl add "Critical" --priority critical --affects d.txt >/dev/null
	git burl add "High" --priority high --affects e.txt >/dev/null
	git burl add "Medium early too" --priority medium --affects f.txt >/dev/null
	edit_task TASK-002 created 2022-01-01T00:00:00Z
	edit_task TASK-003 created 2021-01-01T00:00:00Z
	edit_task TASK-006 created 2021-01-01T00:00:00Z

	order=""
	for _ in 1 2 3 4 5 6; do
		run git burl claim --json
		assert_success
		id=$(printf '%s\n' "$output" | grep -o '"id":"TASK-[0-9]*"' | head -n 1 | cut -d'"' -f4)
		order="$order $id"
	done
	[ "$order" = " TASK-004 TASK-005 TASK-003 TASK-006 TASK-002 TASK-001" ]

	run git burl claim
	assert_failure 1
	assert_output_contains "Nothing to claim"
}

@test "claim with no ID skips tasks whose depends_on is not DONE" {
	git burl add "Foundation" --priority low --affects a.txt >/dev/null
	git burl add "On top" --priority critical --affects b.txt --depends-on TASK-001 >/dev/null

	run git burl claim TASK-002
	assert_failure 4
	assert_output_contains "TASK-001"
	[ "$(bucket_of TASK-002)" = READY ]

	run git burl claim
	assert_success
	assert_output_contains "Claimed TASK-001"

	run git burl claim
	assert_failure 4
	assert_output_contains "TASK-002: waits for TASK-001"
	[ "$(bucket_of TASK-002)" = READY ]
}

@test "claim with no ID skips a task overlapping a DOING task under conflict_policy fail, warns under warn" {
	set_config max_parallel 0
	git burl add "Jump" --affects src/jump.go >/dev/null
	git burl claim TASK-001 >/dev/null
	git burl add "Jump again" --priority critical --affects src/jump.go >/dev/null
	git burl add "Run" --priority low --affects src/run.go >/dev/null

	run git burl claim
	assert_success
	assert_output_contains "Claimed TASK-003"
	[ "$(bucket_of TASK-002)" = READY ]

	run git burl claim
	assert_failure 4
	assert_output_contains "TASK-002: scope overlaps DOING TASK-001"

	run git burl claim TASK-002
	assert_failure 4
	assert_output_contains "overlaps DOING TASK-001"

	set_config conflict_policy warn
	run git burl claim
	assert_success
	assert_output_contains "warning: TASK-002"
	assert_output_contains "TASK-001"
	assert_output_contains "Claimed TASK-002"
	[ "$(bucket_of TASK-002)" = DOING ]
}

@test "claim beyond max_parallel exits 4 naming the cap; submit frees the slot" {
	set_config max_parallel 1
	git burl add "One" --affects one.txt >/dev/null
	git burl add "Two" --affects two.txt >/dev/null
	WT=$(claim_wt)

	run git burl claim
	assert_failure 4
	assert_output_contains "max_parallel is 1 and 1 tasks are in DOING"
	run git burl claim TASK-002
	assert_failure 4
	[ "$(bucket_of TASK-002)" = READY ]
	[ "$(task_branches)" = task-001-one ]

	(cd "$WT" && commit_file one.txt "1")
	git burl submit TASK-001 >/dev/null
	run git burl claim
	assert_success
	assert_output_contains "Claimed TASK-002"
}

@test "claim with READY empty exits 1" {
	run git burl claim
	assert_failure 1
	assert_output_contains "Nothing to claim"
	assert_output_contains "0 READY"
}

@test "claim with the remote unreachable warns that local main is the base, and claims" {
	git burl add "Offline" >/dev/null
	main=$(git rev-parse main)
	git remote set-url origin "$BATS_TEST_TMPDIR/gone.git"
	run git burl claim TASK-001
	assert_success
	assert_output_contains "warning: cannot fetch main from origin, so local main ($(git rev-parse --short=10 main)) is used as it is"
	[ "$(field TASK-001 base_sha)" = "$main" ]
}

@test "claim while a human has uncommitted edits in the main worktree starts from origin's main and leaves theirs alone" {
	git burl add "Agent work" >/dev/null
	clone_repo "$BATS_TEST_TMPDIR/other"
	(cd "$BATS_TEST_TMPDIR/other" && commit_file elsewhere.txt "pushed from another clone" && git push -q origin main)
	ahead=$(git ls-remote origin refs/heads/main | cut -f1)
	local_main=$(git rev-parse main)
	printf 'half-written\n' >>README.md
	run git burl claim TASK-001
	assert_success
	assert_output_contains "main is checked out in $(real "$REPO") with uncommitted changes, so it stays at $(git rev-parse --short=10 main)"
	[ "$(field TASK-001 base_sha)" = "$ahead" ]
	[ "$(git -C .worktrees/task-001-agent-work rev-parse HEAD)" = "$ahead" ]
	[ "$(git rev-parse main)" = "$local_main" ]
	[ "$(git status --porcelain)" = " M README.md" ]
}
