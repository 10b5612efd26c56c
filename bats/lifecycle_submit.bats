#!/usr/bin/env bats
# PRD 14.2: submit's preconditions and its diff-based scope and stub gates.

setup() {
	load helpers
	load lifecycle
	new_burl_repo
	git burl add "Jump" --affects src/jump.go --affects-glob 'src/player/**' --must-not-touch 'src/net/**' >/dev/null
	WT=$(claim_wt TASK-001)
}

@test "submit refuses uncommitted and untracked files and names them" {
	cd "$WT"
	commit_file src/jump.go "$(jump_go 'println(1)')"
	printf 'half done\n' >>src/jump.go
	printf 'scratch\n' >notes.txt

	run git burl submit TASK-001
	assert_failure 1
	assert_output_contains "src/jump.go"
	assert_output_contains "notes.txt"
	[ "$(bucket_of TASK-001)" = DOING ]

	git checkout -q -- src/jump.go
	run git burl submit TASK-001
	assert_failure 1
	assert_output_contains "notes.txt"
	refute_output_contains "src/jump.go"
	[ "$(bucket_of TASK-001)" = DOING ]
}

@test "submit refuses a branch with no commits since base_sha" {
	run git burl submit TASK-001
	assert_failure 1
	assert_output_contains "no commits of its own"
	assert_output_contains "task-001-jump"
	[ "$(bucket_of TASK-001)" = DOING ]
}

@test "submit fails with exit 2 on a must_not_touch file and on a file outside affects" {
	cd "$WT"
	commit_file src/net/client.go 'package net'
	commit_file docs/notes.md '# notes'

	run git burl submit TASK-001
	assert_failure 2
	assert_output_contains "Scope violation"
	assert_output_contains "src/net/client.go  (matches must_not_touch: src/net/**)"
	assert_output_contains "docs/notes.md  (not in affects/affects_globs)"
	[ "$(bucket_of TASK-001)" = DOING ]
	[ "$(field TASK-001 submitted_sha)" = "" ]
}

@test "submit fails with exit 2 on an added TODO, naming file:line; a pre-existing TODO passes" {
	cd "$WT"
	# Touches the file that already has "existing TODO" on line 3.
	commit_file src/jump.go "$(jump_go 'println(1)')"
	commit_file src/player/dash.go "$(printf 'package player\n\nfunc Dash() {\n\t// TODO: cooldown\n}')"

	run git burl submit TASK-001
	assert_failure 2
	assert_output_contains "Stub patterns found in added lines"
	assert_output_contains "src/player/dash.go:4"
	assert_output_contains "// TODO: cooldown"
	refute_output_contains "src/jump.go:"
	[ "$(bucket_of TASK-001)" = DOING ]

	commit_file src/player/dash.go "$(printf 'package player\n\nfunc Dash() {}')"
	run git burl submit TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = QA ]
}

@test "submit with no ID inside the task worktree submits that task" {
	cd "$WT"
	commit_file src/player/run.go 'package player'
	mkdir -p src/player && cd src/player
	run git burl submit
	assert_success
	assert_output_contains "Submitted TASK-001"
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(field TASK-001 submitted_sha)" = "$(git rev-parse HEAD)" ]

	cd "$REPO"
	run git burl submit
	assert_failure 1
	assert_output_contains "not a task branch"
}

@test "standing in a task's worktree, show, validate and release need no ID" {
	git burl add "Here" --affects src/here.go >/dev/null
	wt=$(submitted TASK-002 src/here.go "package src")
	mkdir -p "$wt/src"
	cd "$wt/src"
	run git burl show
	assert_success
	assert_output_contains "TASK-002  Here"
	run git burl validate
	assert_success
	assert_output_contains "Validated TASK-002"
	cd "$REPO"
	git burl add "There" --affects src/there.go >/dev/null
	wt2=$(claim_wt TASK-003)
	cd "$wt2"
	run git burl release --reason "not now"
	assert_success
	cd "$REPO"
	[ "$(bucket_of TASK-003)" = READY ]
}
