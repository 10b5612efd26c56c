#!/usr/bin/env bats
# git-burl, the dispatcher: verb list, version, typos, per-verb help.

load helpers
load foundation

setup() {
	setup_isolated_git
	cd "$BATS_TEST_TMPDIR" || return
}

@test "git burl and git burl help list the verbs" {
	for args in "" help; do
		# shellcheck disable=SC2086
		run git burl $args
		# As git: alone it is a usage error; help is what was asked for.
		if [ -z "$args" ]; then assert_failure 1; else assert_success; fi
		assert_output_contains "usage: git burl <command>"
		for verb in init add status show claim submit validate approve reject log doctor; do
			printf '%s\n' "$output" | grep -Eq "^   $verb +[A-Z]" || { echo "'git burl $args' does not list $verb"; echo "$output"; return 1; }
		done
	done
}

@test "git burl --version prints the version" {
	run git burl --version
	assert_success
	[[ "$output" == "git-burl version "?* ]] || { echo "$output"; return 1; }
}

@test "a mistyped verb exits 1 and suggests the nearest one" {
	run git burl clam
	assert_failure 1
	assert_output_contains "'clam' is not a burl command"
	assert_output_contains "claim"

	run git burl stauts
	assert_failure 1
	assert_output_contains "status"

	run git burl xyzzy-nothing-like-it
	assert_failure 1
	refute_output_contains "most similar"
}

@test "git burl VERB --help and git burl help VERB print usage and exit 0" {
	run git burl status --help
	assert_success
	assert_output_contains "git burl status [--open | --bucket BUCKET]... [--since WHEN] [--json]"
	assert_output_contains "--json"

	run git burl help add
	assert_success
	assert_output_contains "--priority"
	assert_output_contains "--affects-glob"
	assert_output_contains "--body-file"

	run git burl log -h
	assert_success
	assert_output_contains "--follow"
}

@test "an unknown flag is a usage error pointing at --help" {
	new_repo
	run git burl show --frobnicate 1
	assert_failure 1
	assert_output_contains "unknown flag"
	assert_output_contains "Fix: git burl show --help"
}

@test "with --json a usage error is JSON on stdout, wherever --json is" {
	new_repo
	for args in "--bogus --json" "--json --bogus"; do
		# shellcheck disable=SC2086
		git burl status $args >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" && rc=0 || rc=$?
		[ "$rc" -eq 1 ] || { echo "status $args exited $rc"; return 1; }
		[[ "$(cat "$BATS_TEST_TMPDIR/out")" == '{"ok":false,"error":{"kind":"user","message":"unknown flag'* ]] || {
			echo "status $args: stdout $(cat "$BATS_TEST_TMPDIR/out")"
			return 1
		}
	done
}

@test "a mistyped option gets a did-you-mean" {
	new_burl_repo
	run git burl status --jsn
	assert_failure 1
	assert_output_contains "did you mean --json?"
}
