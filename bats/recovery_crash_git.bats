#!/usr/bin/env bats
# Crash at every git command (issue 16): claim, submit and approve are run
# once to count their git commands, then killed (SIGKILL, as kill -9) right
# after each one in turn (BURL_CRASH_AT_GIT=N). After each kill: doctor,
# doctor --repair --force, re-run; and throughout, the task is in exactly
# one bucket, no task is lost, no commit of the task branch is lost, main
# only moves forward and the workflow branch stays linear.
# BURL_CRASH_GIT_STEP=K kills after every Kth git command only (default 1:
# every one). The last test runs the three in a sparse workflow worktree.

load helpers

WORK="work on TASK-001"

stage() {
	cd / && rm -rf "$BATS_TEST_TMPDIR/repo" "$BATS_TEST_TMPDIR/origin.git" "$BATS_TEST_TMPDIR/snap"
	new_burl_repo
	set_config workflow_auto_push true
	set_config push_main_on_approve true
	git -C .burl push -q origin burl
	git burl add "Feature" --affects-glob 'src/feature/**' >/dev/null
	git burl add "Other" >/dev/null
	if [ -n "${SPARSE:-}" ]; then
		# Old months outside the cone of a sparse index (issue 13): a kill
		# must not lose their files from disk either (doctor would say
		# missing_on_disk).
		mkdir -p .burl/.workflow/DONE/2025-01
		for i in 101 102 103; do
			printf -- '---\nid: TASK-%s\ntitle: Old\npriority: medium\ncreated: 2025-01-02T10:00:00Z\ncompleted_at: 2025-01-02T10:00:00Z\n---\n\nOld.\n' "$i" >".burl/.workflow/DONE/2025-01/TASK-$i-old.md"
		done
		git -C .burl add -A .workflow
		git -C .burl commit -q -m "old months"
		git -C .burl push -q origin burl
		BURL_SPARSE_DONE=1 git burl init >/dev/null
		git -C .burl ls-files --sparse | grep -qx .workflow/DONE/2025-01/
	fi
	if [ "$1" != ready ]; then
		git burl claim TASK-001 >/dev/null
		(cd .worktrees/task-001-feature && commit_file src/feature/a.go 'package feature' "$WORK")
	fi
	if [ "$1" = qa ]; then
		git burl submit TASK-001 >/dev/null
		commit_file other.txt 'other' "other work on main"
		git push -q origin main
	fi
	SNAP="$BATS_TEST_TMPDIR/snap"
	mkdir -p "$SNAP"
	cp -a "$REPO" "$ORIGIN" "$SNAP/"
	MAIN0=$(git rev-parse main)
	BURL0=$(git rev-parse burl)
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

invariants() {
	local id
	for id in TASK-001 TASK-002; do
		local b
		b=$(bucket_of "$id") || fail "$1: $id is in more than one bucket: $b" || return 1
		[ -n "$b" ] || fail "$1: $id is lost" || return 1
	done
	if [ "$STAGE" != ready ]; then
		git log --all --format=%s | grep -qx "$WORK" || fail "$1: the task's commit is lost" || return 1
	fi
	git merge-base --is-ancestor "$MAIN0" main || fail "$1: main was rewritten" || return 1
	git merge-base --is-ancestor "$BURL0" burl || fail "$1: the workflow branch was rewritten" || return 1
	[ -z "$(git rev-list --merges "$BURL0..burl")" ] || fail "$1: the workflow branch has a merge commit"
}

# walk TARGET CMD...: count CMD's git commands, then kill it after each.
walk() {
	local target=$1 step=${BURL_CRASH_GIT_STEP:-1} n total
	shift
	restore
	total=$(BURL_TRACE=1 "$@" 2>&1 >/dev/null | grep -c '^\[.*\] git ')
	[ "$total" -gt 0 ] || fail "no git commands counted"
	echo "# $*: $total git commands" >&3
	for ((n = 1; n <= total; n += step)); do
		CASE="$* killed after git command $n of $total"
		restore
		run env BURL_CRASH_AT_GIT=$n "$@"
		# After the last git command there may be nothing left to kill.
		[ "$status" -eq 137 ] || { [ "$n" -eq "$total" ] && [ "$status" -eq 0 ]; } || fail "expected a kill (137), got $status" || return 1
		invariants "after the kill" || return 1
		run git burl doctor
		[ "$status" -eq 0 ] || [ "$status" -eq 2 ] || fail "doctor after the kill: exit $status" || return 1
		run git burl doctor --repair --force
		[ "$status" -eq 0 ] || fail "repair: exit $status" || return 1
		run git burl doctor
		[ "$status" -eq 0 ] || fail "doctor after the repair: exit $status" || return 1
		invariants "after the repair" || return 1
		if [ "$(bucket_of TASK-001)" != "$target" ]; then
			run "$@"
			[ "$status" -eq 0 ] || fail "re-running: exit $status" || return 1
		fi
		[ "$(bucket_of TASK-001)" = "$target" ] || fail "TASK-001 ended in $(bucket_of TASK-001)" || return 1
		run git burl doctor
		[ "$status" -eq 0 ] || fail "doctor at the end: exit $status" || return 1
		invariants "at the end" || return 1
		if [ "$target" = DONE ]; then
			[ "$(git log main --format=%s | grep -cx "$WORK")" -eq 1 ] || fail "the work is in main $(git log main --format=%s | grep -cx "$WORK") times" || return 1
			[ "$(git rev-parse main)" = "$(git rev-parse origin/main)" ] || fail "main was not pushed" || return 1
			[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse main)" ] || fail "the remote's main lacks the approve" || return 1
		fi
	done
}

@test "claim killed after each of its git commands" {
	STAGE=ready
	stage ready
	walk DOING git burl claim TASK-001
}

@test "submit killed after each of its git commands" {
	STAGE=doing
	stage doing
	walk QA git burl submit TASK-001
}

@test "approve (auto-push, push_main_on_approve) killed after each of its git commands" {
	STAGE=qa
	stage qa
	walk DONE git burl approve TASK-001
}

@test "claim, submit and approve killed after each of their git commands in a sparse workflow worktree" {
	SPARSE=1
	STAGE=ready
	stage ready
	walk DOING git burl claim TASK-001
	STAGE=doing
	stage doing
	walk QA git burl submit TASK-001
	STAGE=qa
	stage qa
	walk DONE git burl approve TASK-001
	[ "$(find .burl/.workflow/DONE/2025-01 -name 'TASK-*' | wc -l)" -eq 3 ]
}
