#!/usr/bin/env bats
# git burl hooks install/uninstall/status: the hooks directory git really
# reads, a hook that was already there chained and restored byte for byte.

load helpers
load hooks

setup() {
	new_burl_repo
	git burl add "Add jump" --affects-glob 'src/**' >/dev/null
	WT=$(git burl claim TASK-001 | tail -n 1)
	HOOKS=$(hooks_dir)
	mkdir -p "$HOOKS"
}

# A team's own commit-msg hook: logs that it ran, rejects messages without
# a ticket number.
custom_commit_msg() {
	cat >"$HOOKS/commit-msg" <<-HOOK
	#!/bin/sh
	echo "custom commit-msg ran on \$1" >>"$BATS_TEST_TMPDIR/custom.log"
	grep -q 'JIRA-[0-9]' "\$1" || { echo "custom: message needs a JIRA ticket" >&2; exit 3; }
	HOOK
	chmod 0750 "$HOOKS/commit-msg"
	cp -p "$HOOKS/commit-msg" "$BATS_TEST_TMPDIR/commit-msg.orig"
}

@test "a pre-existing commit-msg hook still runs after install, its failure still blocks, and uninstall restores it exactly" {
	custom_commit_msg
	run git burl hooks install
	assert_success
	assert_output_contains "commit-msg.burl-chained and still runs first"
	cd "$WT"

	commit_file src/a.go 'package src' "JIRA-1 add a"
	grep -q "custom commit-msg ran" "$BATS_TEST_TMPDIR/custom.log"
	[ "$(git log -1 --format='%(trailers:key=Burl-Task,valueonly)' | sed '/^$/d')" = "TASK-001" ]

	head=$(git rev-parse HEAD)
	printf 'package src\n' >src/b.go
	git add src/b.go
	run git commit -m "no ticket"
	assert_failure 1
	assert_output_contains "custom: message needs a JIRA ticket"
	[ "$(git rev-parse HEAD)" = "$head" ]

	# burl's own check still runs after the custom hook passes.
	printf '// FIXME\n' >>src/b.go
	git add src/b.go
	run git commit -m "JIRA-2 b"
	assert_failure 1
	assert_output_contains "src/b.go:2"

	run git burl hooks uninstall
	assert_success
	assert_output_contains "the hook burl had chained is back"
	cmp "$HOOKS/commit-msg" "$BATS_TEST_TMPDIR/commit-msg.orig"
	[ "$(stat -c %a "$HOOKS/commit-msg")" = 750 ]
	[ ! -e "$HOOKS/commit-msg.burl-chained" ]
	[ ! -e "$HOOKS/pre-push" ]
}

@test "a pre-existing pre-push hook gets the same ref lines, and its failure still blocks the push" {
	cat >"$HOOKS/pre-push" <<-HOOK
	#!/bin/sh
	cat >"$BATS_TEST_TMPDIR/custom-stdin"
	echo "\$1 \$2" >"$BATS_TEST_TMPDIR/custom-args"
	[ ! -e "$BATS_TEST_TMPDIR/refuse" ]
	HOOK
	chmod +x "$HOOKS/pre-push"
	git burl hooks install >/dev/null
	cd "$WT"
	commit_file src/a.go 'package src'
	run git push -q origin task-001-add-jump
	assert_success
	[ "$(cat "$BATS_TEST_TMPDIR/custom-args")" = "origin $ORIGIN" ]
	[ "$(cat "$BATS_TEST_TMPDIR/custom-stdin")" = "refs/heads/task-001-add-jump $(git rev-parse HEAD) refs/heads/task-001-add-jump 0000000000000000000000000000000000000000" ]

	# burl still sees the refs after the custom hook read them.
	printf '// TODO\n' >>src/a.go
	git commit -q --no-verify -am "todo"
	run git push origin task-001-add-jump
	assert_failure 1
	assert_output_contains "src/a.go:2"

	touch "$BATS_TEST_TMPDIR/refuse"
	git reset -q --hard HEAD~1
	commit_file src/c.go 'package src'
	run git push -q origin task-001-add-jump
	assert_failure 1
	[ "$(git ls-remote origin refs/heads/task-001-add-jump | cut -f1)" != "$(git rev-parse HEAD)" ]
}

@test "install again is idempotent and status reports each hook" {
	custom_commit_msg
	run git burl hooks status
	assert_success
	assert_output_contains "commit-msg  foreign hook, not managed by burl"
	assert_output_contains "pre-push    absent"

	git burl hooks install >/dev/null
	cp -p "$HOOKS/commit-msg" "$BATS_TEST_TMPDIR/shim"
	run git burl hooks install
	assert_success
	assert_output_contains "commit-msg  unchanged"
	assert_output_contains "pre-push    unchanged"
	cmp "$HOOKS/commit-msg" "$BATS_TEST_TMPDIR/shim"
	cmp "$HOOKS/commit-msg.burl-chained" "$BATS_TEST_TMPDIR/commit-msg.orig"
	[ "$(find "$HOOKS" -name '*burl-chained*' | wc -l)" -eq 1 ]

	run git burl hooks status
	assert_success
	assert_output_contains "commit-msg  burl installed, chaining the hook it replaced"
	assert_output_contains "pre-push    burl installed"

	run git burl hooks status --json
	assert_success
	assert_output_contains '"name":"commit-msg"'
	assert_output_contains '"state":"chained"'
	assert_output_contains '"state":"installed"'
}

@test "install refuses to lose a hook chained earlier; --force chains the new one and keeps the old" {
	custom_commit_msg
	git burl hooks install >/dev/null
	# Another tool overwrites burl's hook.
	printf '#!/bin/sh\nexit 0\n' >"$HOOKS/commit-msg"
	cp -p "$HOOKS/commit-msg" "$BATS_TEST_TMPDIR/other"
	run git burl hooks install
	assert_failure 1
	assert_output_contains "--force"
	cmp "$HOOKS/commit-msg" "$BATS_TEST_TMPDIR/other"
	run git burl hooks install --force
	assert_success
	cmp "$HOOKS/commit-msg.burl-chained" "$BATS_TEST_TMPDIR/other"
	cmp "$HOOKS/commit-msg.burl-chained.1" "$BATS_TEST_TMPDIR/commit-msg.orig"
}

@test "core.hooksPath is honoured" {
	git config core.hooksPath "$BATS_TEST_TMPDIR/shared-hooks"
	run git burl hooks install
	assert_success
	assert_output_contains "$BATS_TEST_TMPDIR/shared-hooks"
	[ -x "$BATS_TEST_TMPDIR/shared-hooks/commit-msg" ]
	[ ! -e "$HOOKS/commit-msg" ]
	cd "$WT"
	printf 'package src\n// FIXME\n' >src/a.go
	git add src/a.go
	run git commit -m "a"
	assert_failure 1
	assert_output_contains "src/a.go:2"
}

@test "hooks installed from a task worktree serve the main worktree and every other one" {
	cd "$WT"
	git burl hooks install >/dev/null
	[ -x "$HOOKS/commit-msg" ]
	cd "$REPO"
	git burl add "Add menu" --affects-glob 'menu/**' >/dev/null
	wt2=$(git burl claim TASK-002 | tail -n 1)
	cd "$wt2"
	printf 'package src\n' >stray.go
	git add stray.go
	run git commit -m "stray"
	assert_failure 1
	assert_output_contains "Cannot commit to TASK-002"
	run git burl hooks status
	assert_output_contains "Hooks directory: $HOOKS"
}

@test "init --hooks installs the hooks" {
	cd "$BATS_TEST_TMPDIR"
	git clone -q "$ORIGIN" fresh 2>/dev/null
	cd fresh
	run git burl init --hooks
	assert_success
	assert_output_contains "commit-msg  installed"
	run git burl hooks status
	assert_output_contains "commit-msg  burl installed"
	assert_output_contains "pre-push    burl installed"
}

@test "uninstall leaves a foreign hook alone" {
	custom_commit_msg
	run git burl hooks uninstall
	assert_success
	assert_output_contains "not burl's: left alone"
	cmp "$HOOKS/commit-msg" "$BATS_TEST_TMPDIR/commit-msg.orig"
}
