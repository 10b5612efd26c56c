#!/usr/bin/env bats
# The install layout: only git-burl on PATH, the verbs in libexec/burl.

load helpers

setup() {
	setup_isolated_git
	BIN=$(dirname "$(command -v git-burl)")
}

@test "only git-burl is on PATH; the verbs live in ../libexec/burl, printed by --exec-path" {
	[ -x "$BIN/git-burl" ]
	run ls "$BIN"
	[ "$output" = "git-burl" ] || { echo "bin holds: $output"; false; }
	run git burl --exec-path
	assert_success
	[ "$(cd "$output" && pwd -P)" = "$(cd "$BIN/../libexec/burl" && pwd -P)" ]
	[ -x "$output/git-burl-claim" ] && [ -x "$output/git-burl-hook" ]
	run command -v git-burl-claim
	assert_failure 1
}

@test "git help -a lists one burl, and git help burl-claim still opens its page" {
	run git help -a
	assert_success
	[ "$(grep -cw 'burl' <<<"$output")" -eq 1 ] || { grep burl <<<"$output"; false; }
	! grep -q 'burl-' <<<"$output"
	command -v man >/dev/null || skip "man is not installed"
	run env MANPAGER=cat PAGER=cat git help burl-claim
	assert_success
	assert_output_contains "git-burl-claim"
	run env MANPAGER=cat PAGER=cat git help burl
	assert_success
	assert_output_contains "exec-path"
}

@test "BURL_EXEC_PATH finds the verbs of a git-burl copied elsewhere" {
	exec_path=$(git burl --exec-path)
	mkdir -p "$BATS_TEST_TMPDIR/lonely"
	cp "$BIN/git-burl" "$BATS_TEST_TMPDIR/lonely/"
	run env PATH="$BATS_TEST_TMPDIR/lonely:/usr/bin:/bin" git burl status
	assert_failure 1
	assert_output_contains "cannot find git-burl-status"
	run env PATH="$BATS_TEST_TMPDIR/lonely:/usr/bin:/bin" BURL_EXEC_PATH="$exec_path" git burl --exec-path
	assert_success
	[ "$output" = "$exec_path" ]
	run env PATH="$BATS_TEST_TMPDIR/lonely:/usr/bin:/bin" BURL_EXEC_PATH="$exec_path" git burl --help
	assert_success
}

@test "install.sh puts the verbs in libexec/burl, removes an older layout's, and uninstall removes everything" {
	root=$BATS_TEST_DIRNAME/..
	prefix=$BATS_TEST_TMPDIR/prefix
	mkdir -p "$prefix/bin"
	# An install from before libexec/burl: verbs next to git-burl.
	touch "$prefix/bin/git-burl-claim" "$prefix/bin/git-burl-hook" "$prefix/bin/unrelated"
	run env PREFIX="$prefix" "$root/install.sh"
	assert_success
	assert_output_contains "libexec/burl"
	assert_output_contains "XDG_DATA_DIRS"
	[ "$(ls "$prefix/bin" | tr '\n' ' ')" = "git-burl unrelated " ]
	[ -x "$prefix/libexec/burl/git-burl-claim" ]
	[ "$("$prefix/bin/git-burl" --exec-path)" = "$prefix/libexec/burl" ]
	run env PREFIX="$prefix" "$root/install.sh" --uninstall
	assert_success
	[ "$(ls "$prefix/bin")" = "unrelated" ]
	[ ! -e "$prefix/libexec/burl" ]
	[ ! -e "$prefix/share/man/man1/git-burl.1" ]
}

@test "a shim installed by an older burl (git-burl-hook from PATH) is updated by the next claim" {
	new_burl_repo
	git burl add "one" --affects-glob "one/**" >/dev/null
	git burl hooks install >/dev/null
	hook=$(git rev-parse --git-path hooks)/commit-msg
	cat >"$hook" <<-'OLD'
		#!/bin/sh
		# installed by git-burl hooks install
		if ! command -v git-burl-hook >/dev/null 2>&1; then
			echo "burl: git-burl-hook is not on PATH; commit-msg checks skipped" >&2
			exit 0
		fi
		exec git-burl-hook commit-msg "$@"
	OLD
	run git burl claim TASK-001
	assert_success
	assert_output_contains "updated burl's commit-msg hook"
	wt=$(tail -n 1 <<<"$output")
	grep -q 'exec git-burl hook commit-msg' "$hook"
	cd "$wt"
	mkdir -p one && printf 'x // TODO\n' >one/a.go && git add one/a.go
	run git commit -q -m "stub"
	[ "$status" -ne 0 ]
	assert_output_contains "TODO"
}

@test "removing burl from a repository as the README says leaves no trace of it; make uninstall leaves no empty folder" {
	new_burl_repo
	git burl hooks install >/dev/null
	git burl add "Feature" --affects f.txt >/dev/null 2>&1
	wt=$(git burl claim TASK-001 | tail -n 1)
	git burl hooks uninstall >/dev/null
	git worktree remove --force "$wt"
	git worktree remove --force .burl
	git branch -D burl task-001-feature >/dev/null
	awk '/^# burl: /{s=1;next} s&&/^(#|$)/{s=0} !s' .git/info/exclude >x && mv x .git/info/exclude
	! grep -q burl .git/info/exclude || false
	[ -z "$(git worktree list --porcelain | grep -c '^worktree' | grep -v '^1$')" ]
	[ -z "$(ls "$(git rev-parse --git-path hooks)" | grep -v '\.sample$')" ]
	[ -z "$(git status --porcelain)" ]
	# The programs go too, with the folders install made.
	# What install put in its prefix (make bats installs one for the tests).
	prefix=$(cd "$(dirname "$(command -v git-burl)")/.." && pwd)
	cp -a "$prefix" "$BATS_TEST_TMPDIR/pfx"
	run env PREFIX="$BATS_TEST_TMPDIR/pfx" "$BATS_TEST_DIRNAME/../install.sh" --uninstall
	assert_success
	assert_output_contains "git burl hooks uninstall"
	[ -z "$(find "$BATS_TEST_TMPDIR/pfx" -mindepth 1)" ]
}
