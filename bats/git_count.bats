#!/usr/bin/env bats
# DESIGN §28, issue 43: git processes per transition, counted by a logging
# `git` first on PATH (contrib/bench/gitcount.sh, which make bench prints
# too): claim, submit, approve and one task landed by watch --once with the
# sandbox on. The test fails when a count is above its ceiling in the
# script: §28's number where it is reached, else the count reached so far
# (a ratchet that only comes down).

load helpers

@test "§28: claim, submit, approve and a watched task start no more git processes than their ceilings" {
	setup_isolated_git
	run "$BATS_TEST_DIRNAME/../contrib/bench/gitcount.sh" --check
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| claim | "* ]]
	[[ "$output" != *"**over**"* ]]
}
