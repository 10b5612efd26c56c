#!/usr/bin/env bats
# commit-msg: the staged change of a DOING task's branch is checked against
# its scope and stub patterns; every other branch is left alone.

load helpers
load hooks

setup() {
	new_task_repo
}

@test "a commit adding a FIXME inside the scope is blocked and HEAD does not move" {
	cd "$WT"
	head=$(git rev-parse HEAD)
	printf 'package src\n\n// FIXME: handle double jump\nfunc Double() {}\n' >src/double.go
	git add src/double.go
	run git commit -m "double jump"
	assert_failure 1
	assert_output_contains "Cannot commit to TASK-001"
	assert_output_contains "src/double.go:3"
	assert_output_contains "FIXME: handle double jump"
	[ "$(git rev-parse HEAD)" = "$head" ]
	# The change is still staged, ready to be fixed.
	[ "$(git diff --cached --name-only)" = "src/double.go" ]
}

@test "a commit touching a must_not_touch path is blocked" {
	cd "$WT"
	head=$(git rev-parse HEAD)
	mkdir -p src/net
	printf 'package net\n' >src/net/client.go
	git add src/net/client.go
	run git commit -m "net client"
	assert_failure 1
	assert_output_contains "src/net/client.go"
	assert_output_contains "must_not_touch: src/net/**"
	[ "$(git rev-parse HEAD)" = "$head" ]
}

@test "a commit outside the allowed scope is blocked" {
	cd "$WT"
	printf 'notes\n' >NOTES.txt
	git add NOTES.txt
	run git commit -m "notes"
	assert_failure 1
	assert_output_contains "NOTES.txt"
	assert_output_contains "not in affects/affects_globs"
}

@test "a clean in-scope commit succeeds and carries the Burl-Task trailer" {
	cd "$WT"
	printf 'package src\n\nfunc Double() {}\n' >src/double.go
	git add src/double.go
	run git commit -q -m "double jump"
	assert_success
	[ "$(git log -1 --format='%(trailers:key=Burl-Task,valueonly)' | sed '/^$/d')" = "TASK-001" ]
	[ "$(git log -1 --format=%s)" = "double jump" ]
}

@test "a message of comments only, in core.commentChar, still aborts the commit; # is then text" {
	cd "$WT"
	git config core.commentChar ';'
	head=$(git rev-parse HEAD)
	printf 'package src\n\nfunc Double() {}\n' >src/double.go
	git add src/double.go
	printf '; Please enter the commit message\n;\n\n' >"$BATS_TEST_TMPDIR/msg"
	run git commit --cleanup=strip -F "$BATS_TEST_TMPDIR/msg"
	assert_failure 1
	assert_output_contains "empty commit message"
	[ "$(git rev-parse HEAD)" = "$head" ]

	printf '#12 double jump\n; a comment\n' >"$BATS_TEST_TMPDIR/msg"
	run git commit -q --cleanup=strip -F "$BATS_TEST_TMPDIR/msg"
	assert_success
	[ "$(git log -1 --format=%s)" = "#12 double jump" ]
	[ "$(git log -1 --format='%(trailers:key=Burl-Task,valueonly)' | sed '/^$/d')" = "TASK-001" ]
}

@test "an amend keeps a single Burl-Task trailer" {
	cd "$WT"
	commit_file src/double.go 'package src'
	git commit -q --amend -m "double jump, amended"
	[ "$(git log -1 --format=%B | grep -c '^Burl-Task: TASK-001$')" -eq 1 ]
}

@test "an old TODO in a touched file does not block: only added lines count" {
	cd "$WT"
	# src/jump.go already has "// existing TODO: not ours" on main.
	printf 'func Land() {}\n' >>src/jump.go
	git add src/jump.go
	run git commit -q -m "land"
	assert_success
}

@test "git commit -a and git commit <path> are checked on the index git commits" {
	cd "$WT"
	head=$(git rev-parse HEAD)
	printf '// TODO: cooldown\n' >>src/jump.go
	# Nothing is staged in the real index: git commits through index.lock
	# (-a) or a temporary index (<path>) and names it in GIT_INDEX_FILE.
	run git commit -a -m "cooldown"
	assert_failure 1
	assert_output_contains "src/jump.go:5"
	run git commit -m "cooldown" src/jump.go
	assert_failure 1
	assert_output_contains "TODO: cooldown"
	[ "$(git rev-parse HEAD)" = "$head" ]
}

@test "a commit from a subdirectory of the task worktree is checked too" {
	cd "$WT/src"
	printf 'package src\n// XXX\n' >x.go
	git add x.go
	run git commit -m "x"
	assert_failure 1
	assert_output_contains "src/x.go:2"
}

@test "on a non-task branch a commit with a TODO succeeds, without a trailer" {
	cd "$REPO"
	printf 'package src\n\n// TODO: later\nfunc Later() {}\n' >src/later.go
	git add src/later.go
	run git commit -q -m "later"
	assert_success
	[ -z "$(git log -1 --format='%(trailers:key=Burl-Task)')" ]
	# A branch that only looks like a task branch is not one either.
	git switch -q -c task-999-not-a-task
	commit_file src/more.go '// FIXME: fine here'
	[ "$(git log -1 --format=%s)" = "edit src/more.go" ]
}

@test "a task that is no longer in DOING is not checked" {
	cd "$REPO"
	git burl release TASK-001 --reason "agent died" >/dev/null
	cd "$WT"
	commit_file src/double.go '// TODO: still mine, but the task is READY'
	[ "$(git log -1 --format=%s)" = "edit src/double.go" ]
}

@test "git commit --no-verify bypasses the hook" {
	cd "$WT"
	printf 'package src\n// FIXME\n' >src/double.go
	git add src/double.go
	run git commit -q --no-verify -m "wip"
	assert_success
	[ "$(git log -1 --format=%s)" = "wip" ]
}

@test "the hook checks the commits of every task worktree" {
	cd "$REPO"
	git burl add "Add menu" --affects-glob 'menu/**' >/dev/null
	wt2=$(git burl claim TASK-002 | tail -n 1)
	cd "$wt2"
	mkdir -p menu
	printf 'package menu\n' >menu/menu.go
	printf 'package src\n' >src/stolen.go
	git add menu src
	run git commit -m "menu"
	assert_failure 1
	assert_output_contains "Cannot commit to TASK-002"
	assert_output_contains "src/stolen.go"
	git rm -q --cached src/stolen.go
	run git commit -q -m "menu"
	assert_success
	[ "$(git log -1 --format='%(trailers:key=Burl-Task,valueonly)' | sed '/^$/d')" = "TASK-002" ]
	cd "$WT"
	commit_file src/double.go 'package src'
	[ "$(git log -1 --format='%(trailers:key=Burl-Task,valueonly)' | sed '/^$/d')" = "TASK-001" ]
}

@test "the hook fails open, with a warning, when burl is not on PATH" {
	cd "$WT"
	printf 'package src\n// FIXME\n' >src/double.go
	git add src/double.go
	# A PATH with git and the shell but without burl's binaries.
	mkdir -p "$BATS_TEST_TMPDIR/nobin"
	ln -s "$(command -v git)" "$BATS_TEST_TMPDIR/nobin/git"
	PATH="$BATS_TEST_TMPDIR/nobin:/bin" run git commit -q -m "offline"
	assert_success
	assert_output_contains "git-burl is not on PATH; commit-msg checks skipped"
	[ "$(git log -1 --format=%s)" = "offline" ]
}
