#!/usr/bin/env bats
# pre-push: every pushed task branch is checked over base_sha..<pushed sha>;
# a violation anywhere blocks the whole push.

load helpers
load hooks

setup() {
	new_task_repo
	BRANCH=task-001-add-jump
}

remote_has() {
	[ -n "$(git -C "$REPO" ls-remote --heads origin "$1")" ]
}

# `! cmd` would not fail a bats test; this does.
remote_lacks() {
	[ -z "$(git -C "$REPO" ls-remote --heads origin "$1")" ]
}

@test "pushing a task branch whose commits break scope and stubs is rejected and origin does not get it" {
	cd "$WT"
	mkdir -p src/net
	printf 'package net\n' >src/net/client.go
	printf 'package src\n// TODO: cooldown\n' >src/cooldown.go
	git add src
	git commit -q --no-verify -m "bad"
	commit_file src/ok.go 'package src'
	run git push origin "$BRANCH"
	assert_failure 1
	assert_output_contains "Cannot push to origin"
	assert_output_contains "refs/heads/$BRANCH (TASK-001"
	assert_output_contains "src/net/client.go  (matches must_not_touch: src/net/**)"
	assert_output_contains "src/cooldown.go:2  + // TODO: cooldown"
	remote_lacks "$BRANCH"
}

@test "a clean task branch pushes" {
	cd "$WT"
	commit_file src/double.go 'package src'
	run git push -q origin "$BRANCH"
	assert_success
	[ "$(git ls-remote origin "refs/heads/$BRANCH" | cut -f1)" = "$(git rev-parse HEAD)" ]
}

@test "every violating branch of a push is listed, and none of the push lands" {
	git burl add "Add menu" --affects-glob 'menu/**' >/dev/null
	wt2=$(git burl claim TASK-002 | tail -n 1)
	(cd "$wt2" && printf 'x\n' >README.md && git commit -q --no-verify -am "readme")
	(cd "$WT" && printf '// HACK\n' >>src/jump.go && git commit -q --no-verify -am "hack")
	git branch -q clean-side main
	run git push origin "$BRANCH" task-002-add-menu clean-side
	assert_failure 1
	assert_output_contains "refs/heads/$BRANCH (TASK-001"
	assert_output_contains "src/jump.go:5  + // HACK"
	assert_output_contains "refs/heads/task-002-add-menu (TASK-002"
	assert_output_contains "README.md  (not in affects/affects_globs)"
	remote_lacks "$BRANCH"
	remote_lacks task-002-add-menu
	remote_lacks clean-side
}

@test "a task branch in QA is checked too" {
	cd "$WT"
	commit_file src/double.go 'package src'
	git burl submit >/dev/null
	printf '// FIXME\n' >>src/double.go
	git commit -q --no-verify -am "after submit"
	run git push origin "$BRANCH"
	assert_failure 1
	assert_output_contains "src/double.go:2"
}

@test "non-task refs and deletions pass" {
	cd "$REPO"
	commit_file src/later.go '// TODO: main is not a task branch'
	run git push -q origin main
	assert_success
	cd "$WT"
	git push -q origin "$BRANCH"
	printf '// FIXME\n' >>src/jump.go
	git commit -q --no-verify -am "bad, but we only delete"
	run git push -q origin ":$BRANCH"
	assert_success
	remote_lacks "$BRANCH"
}

@test "git push --no-verify bypasses the hook" {
	cd "$WT"
	printf '// FIXME\n' >>src/jump.go
	git commit -q --no-verify -am "wip"
	run git push -q --no-verify origin "$BRANCH"
	assert_success
	remote_has "$BRANCH"
}

@test "git burl hook pre-push run by hand on a terminal says to run it through git" {
	command -v script >/dev/null 2>&1 || skip "script(1) is needed to give the command a terminal"
	cd "$WT"
	run script -qec "git burl hook pre-push origin $ORIGIN" /dev/null
	assert_failure 1
	assert_output_contains "This should be run through git's pre-push hook"
}
