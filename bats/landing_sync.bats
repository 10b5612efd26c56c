#!/usr/bin/env bats
# sync never publishes DONE without its work (DESIGN §15, issue 22.6): DONE
# on the remote implies its work on the remote's main. A clone that
# approves without pushing main (push_main_on_approve off) has DONE tasks
# whose work is in its main only: sync pushes main with the workflow
# branch when main is a fast-forward of the remote's, and otherwise
# publishes nothing and says why; status and doctor say so meanwhile.

load helpers
load lifecycle

# approved_here N: task N added, claimed, committed, submitted and approved
# in this clone; main is not pushed.
approved_here() {
	local id
	id=$(printf 'TASK-%03d' "$1")
	git burl add "feature $1" --affects "f$1.txt" >/dev/null || return 1
	submitted "$id" "f$1.txt" "work $1" >/dev/null || return 1
	git burl approve "$id" >/dev/null
}

@test "sync pushes main with the DONE tasks whose work only it has; another clone sees DONE and the work" {
	new_burl_repo
	approved_here 1
	approved_here 2
	[ "$(git rev-parse origin/main)" != "$(git rev-parse main)" ]
	run git burl status --json
	assert_success
	[ "$(jq -c .done_not_on_remote_main <<<"$output")" = '["TASK-001","TASK-002"]' ]
	run git burl status
	assert_output_contains "the work of DONE TASK-001, TASK-002 is in local main only"
	# Not published yet: this clone simply does not push main.
	run git burl doctor
	assert_success
	run git burl sync
	assert_success
	assert_output_contains "Pushed to origin: burl, main"
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse main)" ]
	run git burl status --json
	[ "$(jq -c .done_not_on_remote_main <<<"$output")" = '[]' ]
	run git burl doctor
	assert_success
	B="$BATS_TEST_TMPDIR/B"
	clone_repo "$B"
	cd "$B"
	git burl init >/dev/null
	[ "$(git burl status --json | jq .counts.DONE)" -eq 2 ]
	git show origin/main:f1.txt | grep -q "work 1"
	git show origin/main:f2.txt | grep -q "work 2"
}

@test "DONE already published without its work (a push by hand): doctor names it and repair pushes main; sync pushes it too" {
	new_burl_repo
	approved_here 1
	git -C .burl push -q origin burl
	run git burl doctor --json
	assert_failure 2
	[ "$(jq -r '.findings[] | select(.kind == "done_not_on_remote_main") | .repairable' <<<"$output")" = true ]
	assert_output_contains "TASK-001 are DONE on origin/burl"
	run git burl doctor --repair --force
	assert_success
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse main)" ]
	run git burl doctor
	assert_success
	# The same state again, this time sync finds it with nothing else to push.
	approved_here 2
	git -C .burl push -q origin burl
	run git burl sync --push
	assert_success
	assert_output_contains "main"
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse main)" ]
}

@test "sync refuses to publish DONE when local main has diverged from the remote's, says why, and publishes once main is rebased" {
	new_burl_repo
	git -C .burl push -q origin burl
	approved_here 1
	burl_before=$(git ls-remote origin refs/heads/burl | cut -f1)
	# Someone else lands on the remote's main meanwhile.
	B="$BATS_TEST_TMPDIR/B"
	clone_repo "$B"
	(cd "$B" && commit_file other.txt "other" "other work" && git push -q origin main)
	run git burl sync
	assert_failure 3
	assert_output_contains "Cannot publish DONE without its work"
	assert_output_contains "TASK-001"
	assert_output_contains "git rebase origin/main main"
	[ "$(git ls-remote origin refs/heads/burl | cut -f1)" = "$burl_before" ]
	[ "$(git burl status --json | jq -c .done_not_on_remote_main)" = '["TASK-001"]' ]
	# Nothing was published, so nothing is wrong on the remote.
	run git burl doctor
	assert_success
	git rebase -q origin/main main
	run git burl sync
	assert_success
	assert_output_contains "main"
	git --git-dir="$ORIGIN" show main:f1.txt | grep -q "work 1"
	git --git-dir="$ORIGIN" show main:other.txt | grep -q "other"
	run git burl doctor
	assert_success
}

@test "with workflow_auto_push, approve publishes main with the DONE even when push_main_on_approve is off" {
	new_burl_repo
	set_config workflow_auto_push true
	git -C .burl push -q origin burl
	approved_here 1
	[ "$(git --git-dir="$ORIGIN" rev-parse main)" = "$(git rev-parse main)" ]
	git --git-dir="$ORIGIN" show main:f1.txt | grep -q "work 1"
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl -- .workflow/DONE | grep -q TASK-001
	[ "$(git burl status --json | jq -c .done_not_on_remote_main)" = '[]' ]
}

# An approve killed after its move, before its commit, leaves the task in
# DONE uncommitted and main advanced here but not pushed (with auto-push
# both go out in the approve's one push, which never happened). doctor's
# repair commits what the approve left, and is killed itself before it
# pushes main (the kill soak did this): the next command's push must carry
# main with that DONE, as for an approve killed after its commit.
@test "an approve killed after its move, its repair killed after committing it: the next push carries main with the DONE (auto-push)" {
	new_burl_repo
	set_config workflow_auto_push true
	set_config push_main_on_approve true
	git -C .burl push -q origin burl
	git burl add "feature 1" --affects f1.txt >/dev/null
	git burl add "feature 2" --affects f2.txt >/dev/null
	submitted TASK-001 f1.txt "work 1" >/dev/null
	run env BURL_CRASH_AFTER=approve:move git burl approve TASK-001
	assert_failure
	run env BURL_CRASH_AFTER=repair:uncommitted_change git burl doctor --repair --force
	assert_failure
	git -C .burl log -1 --format=%s | grep -q "TASK-001: interrupted_approve"
	# The killed repair's lock cleared by hand, the next transition pushes
	# what this clone has not published yet.
	git burl lock clear workflow --force >/dev/null
	run git burl claim TASK-002
	assert_success
	if git --git-dir="$ORIGIN" ls-tree -r --name-only burl -- .workflow/DONE | grep -q TASK-001; then
		git --git-dir="$ORIGIN" show main:f1.txt | grep -q "work 1"
	else
		# Or the repair was dropped: the task is back in QA, main as it was.
		git --git-dir="$ORIGIN" ls-tree -r --name-only burl -- .workflow/QA | grep -q TASK-001
		! git --git-dir="$ORIGIN" cat-file -e main:f1.txt
	fi
	run git burl doctor --repair --force
	assert_success
	run git burl doctor
	assert_success
}
