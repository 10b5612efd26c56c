#!/usr/bin/env bats
# Crash injection (PRD 10.6 and 18.3, DESIGN §7): each named step of claim,
# submit, validate, approve and reject is cut short by a real SIGKILL
# (BURL_CRASH_AFTER=verb:step). Then doctor must report the damage (exit 2),
# doctor --repair --force must make the repository healthy again, and the
# interrupted command must complete when run again (or be done already).
# Throughout, each task is in exactly one bucket, the workflow branch has
# no merge commit and no commit of the task branch is lost.

load helpers

WORK="work on TASK-001"

# stage NAME: build the repository as it is just before the verb under
# test and snapshot it; restore puts the snapshot back at the same paths,
# so git's absolute worktree paths stay valid.
stage() {
	cd / && rm -rf "$BATS_TEST_TMPDIR/repo" "$BATS_TEST_TMPDIR/origin.git" "$BATS_TEST_TMPDIR/snap"
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/feature/**' >/dev/null
	if [ "$1" != ready ]; then
		git burl claim TASK-001 >/dev/null
		(cd .worktrees/task-001-feature && commit_file src/feature/a.go 'package feature' "$WORK")
	fi
	case $1 in
	qa | qa-main-moved)
		git burl submit TASK-001 >/dev/null
		;;
	esac
	if [ "$1" = qa-main-moved ]; then
		# main moves on after the claim, so approve's rebase really rewrites.
		commit_file other.txt 'other' "other work on main"
	fi
	SNAP="$BATS_TEST_TMPDIR/snap"
	mkdir -p "$SNAP"
	cp -a "$REPO" "$ORIGIN" "$SNAP/"
}

restore() {
	cd / || return 1
	rm -rf "$REPO" "$ORIGIN"
	cp -a "$SNAP/repo" "$SNAP/origin.git" "$BATS_TEST_TMPDIR/"
	cd "$REPO" || return 1
}

fail() {
	echo "$CASE: $*" >&2
	[ -n "${output:-}" ] && echo "$output" >&2
	return 1
}

# consistent [WHEN]: the invariants that must hold at every point.
consistent() {
	bucket_of TASK-001 >/dev/null || fail "${1:-}: TASK-001 is in more than one bucket: $(bucket_of TASK-001)"
	[ -z "$(git rev-list --merges burl)" ] || fail "${1:-}: the workflow branch has a merge commit"
	if [ "$STAGE" != ready ]; then
		git log --branches --format=%s | grep -qx "$WORK" || fail "${1:-}: the task's commit is on no branch any more"
	fi
}

# crash VERB STEP TARGET KIND CMD...: run CMD killed after VERB:STEP, expect
# doctor to report KIND (besides the dead locks), repair, and TASK-001 to
# end in TARGET once CMD is re-run.
crash() {
	local verb=$1 step=$2 target=$3 kind=$4
	shift 4
	CASE="$verb:$step"
	restore
	run env BURL_CRASH_AFTER="$verb:$step" "$@"
	[ "$status" -eq 137 ] || fail "expected the command to be killed (exit 137), got $status"
	consistent "after the crash" || return 1
	run git burl doctor --json
	[ "$status" -eq 2 ] || fail "doctor after the crash: expected exit 2, got $status"
	for k in dead_lock "$kind"; do
		[[ "$output" == *"\"kind\":\"$k\""* ]] || fail "doctor did not report $k"
	done
	run git burl doctor --repair --force
	[ "$status" -eq 0 ] || fail "doctor --repair --force: exit $status"
	consistent "after the repair" || return 1
	run git burl doctor
	[ "$status" -eq 0 ] || fail "doctor after the repair: exit $status"
	if [ "$(bucket_of TASK-001)" != "$target" ] || [ "$verb" = validate ]; then
		run "$@"
		[ "$status" -eq 0 ] || fail "re-running the command: exit $status"
	fi
	[ "$(bucket_of TASK-001)" = "$target" ] || fail "TASK-001 ended in $(bucket_of TASK-001), not $target"
	[ -z "$(git -C .burl status --porcelain)" ] || fail "uncommitted workflow changes: $(git -C .burl status --porcelain)"
	run git burl doctor
	[ "$status" -eq 0 ] || fail "doctor at the end: exit $status"
	consistent "at the end"
}

@test "claim killed at every step: doctor, repair, and claim completes" {
	STAGE=ready
	stage ready
	crash claim branch DOING dead_lock git burl claim
	crash claim worktree DOING dead_lock git burl claim
	crash claim prepare DOING dead_lock git burl claim
	crash claim write DOING bucket_mismatch git burl claim
	crash claim move DOING uncommitted_change git burl claim
	crash claim log DOING uncommitted_change git burl claim
	crash claim commit DOING dead_lock git burl claim
	# The claim that finished reused the branch and worktree the crash left.
	[ -d .worktrees/task-001-feature ]
	[ "$(git -C .worktrees/task-001-feature symbolic-ref --short HEAD)" = task-001-feature ]
}

@test "submit killed at every step: doctor, repair, and submit completes" {
	STAGE=doing
	stage doing
	for step in prepare commit; do
		crash submit $step QA dead_lock git burl submit TASK-001
	done
	crash submit write QA bucket_mismatch git burl submit TASK-001
	crash submit move QA uncommitted_change git burl submit TASK-001
	crash submit log QA uncommitted_change git burl submit TASK-001
	[ "$(git burl show TASK-001 --json | jq -r .task.submitted_sha)" = "$(git rev-parse task-001-feature)" ]
}

@test "validate killed at every step: doctor, repair, and validate completes" {
	STAGE=qa
	stage qa
	for step in prepare commit; do
		crash validate $step QA dead_lock git burl validate TASK-001
	done
	crash validate write QA uncommitted_change git burl validate TASK-001
	crash validate log QA uncommitted_change git burl validate TASK-001
	git burl show TASK-001 | grep -q "Validate PASS"
}

@test "approve killed at every step: doctor, repair, and approve completes" {
	STAGE=qa-main-moved
	stage qa-main-moved
	for step in rebase commit; do
		crash approve $step DONE dead_lock git burl approve TASK-001
	done
	for step in merge prepare; do
		crash approve $step DONE interrupted_approve git burl approve TASK-001
	done
	# Killed after recording its intent, before moving main: the record is
	# a leftover doctor names and repair removes.
	crash approve intent DONE stale_approve_intent git burl approve TASK-001
	# Cleanup comes after DONE is committed: a crash there leaves nothing
	# to repair, and approving again is a no-op that exits 0.
	CASE=approve:cleanup
	restore
	run env BURL_CRASH_AFTER=approve:cleanup git burl approve TASK-001
	[ "$status" -eq 137 ] || fail "expected the command to be killed (exit 137), got $status"
	[ "$(bucket_of TASK-001)" = DONE ] || fail "not DONE after a crash in cleanup"
	run git burl doctor
	[ "$status" -eq 0 ] || fail "doctor after a crash in cleanup: exit $status"
	run git burl approve TASK-001
	[ "$status" -eq 0 ] || fail "approving a DONE task again: exit $status"
	crash approve write DONE bucket_mismatch git burl approve TASK-001
	crash approve move DONE uncommitted_change git burl approve TASK-001
	crash approve log DONE uncommitted_change git burl approve TASK-001
	# The work reached main exactly once, on top of main's own commit.
	[ "$(git log main --format=%s | grep -cx "$WORK")" -eq 1 ]
	git log main --format=%s | grep -qx "other work on main"
}

@test "reject killed at every step: doctor, repair, and the task is back in READY" {
	STAGE=qa
	stage qa
	crash reject write READY bucket_mismatch git burl reject TASK-001 --reason "needs tests"
	crash reject move READY uncommitted_change git burl reject TASK-001 --reason "needs tests"
	crash reject log READY uncommitted_change git burl reject TASK-001 --reason "needs tests"
	crash reject commit READY dead_lock git burl reject TASK-001 --reason "needs tests"
	# Attempts counted once, and the branch kept for the next claim.
	[ "$(git burl show TASK-001 --json | jq -r .task.qa_attempts)" -eq 1 ]
	git rev-parse -q --verify task-001-feature >/dev/null
}

# clear_dead_locks: what a user does without doctor (workflow lock first:
# lock clear logs under it).
clear_dead_locks() {
	local names
	names=$(git burl lock list --json | jq -r '.locks[] | select(.dead) | .name' | sort -r)
	for n in $names; do
		git burl lock clear "$n" --force >/dev/null || return 1
	done
}

@test "without doctor: claim and approve re-run after a crash reuse or finish what the crash left" {
	STAGE=ready
	stage ready
	for step in branch worktree; do
		CASE="claim:$step"
		restore
		run env BURL_CRASH_AFTER="claim:$step" git burl claim
		[ "$status" -eq 137 ]
		clear_dead_locks
		run git burl claim
		assert_success
		assert_output_contains "reusing branch task-001-feature"
		[ "$(bucket_of TASK-001)" = DOING ]
	done
	STAGE=qa-main-moved
	stage qa-main-moved
	for step in rebase intent merge cleanup write; do
		CASE="approve:$step"
		restore
		run env BURL_CRASH_AFTER="approve:$step" git burl approve TASK-001
		[ "$status" -eq 137 ]
		clear_dead_locks
		run git burl approve TASK-001 --json
		assert_success
		[ "$(bucket_of TASK-001)" = DONE ]
		[ "$(git log main --format=%s | grep -cx "$WORK")" -eq 1 ] || fail "the work is not in main exactly once"
		[ ! -e .worktrees/task-001-feature ] || fail "the worktree is left"
		! git rev-parse -q --verify task-001-feature >/dev/null || fail "the branch is left"
		run git burl doctor
		assert_success
	done
}

@test "EXDEV: a forced copy+delete move warns and works; killed between copy and delete, doctor reconciles the two copies" {
	new_burl_repo
	git burl add "One" >/dev/null
	git burl add "Two" >/dev/null
	run env BURL_FORCE_EXDEV=1 git burl claim TASK-001
	assert_success
	assert_output_contains "copy+delete"
	[ "$(bucket_of TASK-001)" = DOING ]

	run env BURL_FORCE_EXDEV=1 BURL_CRASH_AFTER=move:copied git burl claim TASK-002
	[ "$status" -eq 137 ]
	[ -f .burl/.workflow/READY/TASK-002-two.md ]
	[ -f .burl/.workflow/DOING/TASK-002-two.md ]
	run git burl doctor --json
	assert_failure 2
	[ "$(jq -r '.findings[] | select(.kind == "duplicate_task") | .task' <<<"$output")" = TASK-002 ]
	run git burl doctor --repair --force
	assert_success
	[ "$(bucket_of TASK-002)" = DOING ]
	run git burl doctor
	assert_success
	[ -z "$(git -C .burl status --porcelain)" ]
	[ -z "$(git rev-list --merges burl)" ]
}

# half_rebase FILES...: the state git leaves when a rebase of the task
# branch is killed while it writes rebase-merge/ (issue 22.8): the folder
# and the first of its files (git writes interactive, head-name, onto,
# orig-head in that order and detaches HEAD only after), HEAD still on
# the branch.
half_rebase() {
	local dir f
	dir=$(git -C .worktrees/task-001-feature rev-parse --absolute-git-dir)/rebase-merge
	mkdir "$dir"
	for f in "$@"; do
		case $f in
		head-name) echo refs/heads/task-001-feature >"$dir/$f" ;;
		onto) git rev-parse main >"$dir/$f" ;;
		*) : >"$dir/$f" ;;
		esac
	done
}

@test "approve killed while git wrote rebase-merge/: approve and doctor recognise the half-written rebase as approve's own" {
	STAGE=qa-main-moved
	stage qa-main-moved
	for files in "" "interactive" "interactive head-name" "interactive head-name onto"; do
		CASE="rebase-merge with [$files]"
		restore
		# shellcheck disable=SC2086
		half_rebase $files
		run git burl approve TASK-001
		assert_success
		assert_output_contains "aborted the rebase an interrupted approve left"
		[ "$(bucket_of TASK-001)" = DONE ] || fail "not DONE"
		[ "$(git log main --format=%s | grep -cx "$WORK")" -eq 1 ] || fail "the work is not in main exactly once"
		consistent "after approve" || return 1
		# The same state through doctor: reported as approve's, repaired.
		restore
		# shellcheck disable=SC2086
		half_rebase $files
		run git burl doctor --json
		assert_failure 2
		[ "$(jq -r '.findings[] | select(.kind == "rebase_in_progress") | .repairable' <<<"$output")" = true ] || fail "not repairable"
		run git burl doctor --repair --force
		assert_success
		run git burl doctor
		assert_success
		[ "$(git -C .worktrees/task-001-feature rev-parse HEAD)" = "$(git burl show TASK-001 --json | jq -r .task.submitted_sha)" ] || fail "the branch is not back at its submitted commit"
		run git burl approve TASK-001
		assert_success
	done
	# A rebase of another branch stopped there is a human's: left alone.
	restore
	half_rebase interactive
	echo refs/heads/someone-else >"$(git -C .worktrees/task-001-feature rev-parse --absolute-git-dir)/rebase-merge/head-name"
	run git burl approve TASK-001
	assert_failure 1
	assert_output_contains "a rebase of someone-else is stopped"
}
