#!/usr/bin/env bats
# DESIGN §28, issue 43: with workflow_auto_push and push_main_on_approve
# against a local bare origin, a transition costs one fetch and one push
# at most (one clone: no race to lose). Counted by a logging `git` first
# on PATH (contrib/bench/roundtrips.sh, which make bench prints too):
# claim, submit and approve by hand, and the verbs and the watch process
# of one task landed by watch --once.

load helpers

@test "§28: with auto-push, claim, submit and approve (by hand and under watch) each cost one fetch and one push" {
	setup_isolated_git
	run "$BATS_TEST_DIRNAME/../contrib/bench/roundtrips.sh" --check
	echo "$output"
	[ "$status" -eq 0 ]
	for v in claim submit approve "claim under watch --once" "submit under watch --once" "approve--all under watch --once"; do
		[[ "$output" == *"| $v | 1 | 1 | "* ]]
	done
	[[ "$output" != *"**over**"* ]]
	[[ "$output" == *"one task landed by watch --once: "* ]]
}
