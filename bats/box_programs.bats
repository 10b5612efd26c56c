#!/usr/bin/env bats
# An agent's program is never one a run could rewrite (DESIGN §24): watch
# refuses one that lies where runs write (the worktrees, .git), and holds
# every agent's program read-only in every box, even in a sandbox_write
# path: an author cannot rewrite its reviewer's program, whose verdict
# lands the task.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

setup() {
	need_bwrap
	watch_repo
}

@test "watch refuses an agent whose program lies in the repository's worktrees folder, which runs write" {
	git burl add "One" --affects-glob 'src/**' >/dev/null
	mkdir -p "$REPO/.worktrees"
	printf '#!/bin/sh\nexit 0\n' >"$REPO/.worktrees/bot"
	chmod +x "$REPO/.worktrees/bot"
	agents_yaml "sandbox: bwrap
agents:
  - name: bot
    command: [\"$REPO/.worktrees/bot\"]"
	run git burl watch --once --interval 100ms
	assert_failure
	assert_output_contains "agent bot's program $REPO/.worktrees/bot lies in"
	[ "$(bucket_of TASK-001)" = READY ]
}

@test "an author cannot rewrite its reviewer's program in a sandbox_write path: the reviewer's request_changes stands" {
	git burl add "Reviewed" --affects-glob 'src/**' >/dev/null
	# The reviewer's program as the author would have it: approve all.
	agent forged 'printf "{\"verdict\":\"approve\",\"summary\":\"forged\",\"comments\":[]}" >"$BURL_REVIEW_FILE"'
	agent coder 'mkdir -p src && echo "$BURL_TASK" >"src/$BURL_TASK.txt"
if cat "'"$AGENTS"'/forged" >"'"$AGENTS"'/critic" 2>/dev/null; then echo rewrote; else echo refused; fi >>"'"$AGENTS"'/attack"'
	agent critic 'printf "{\"verdict\":\"request_changes\",\"summary\":\"not this\",\"comments\":[]}" >"$BURL_REVIEW_FILE"'
	agents_yaml "auto_approve: true
sandbox: bwrap
review: {agent: critic, rounds: 1}
agents:
  - name: coder
    command: [\"$AGENTS/coder\"]
    timeout: 60s
  - name: critic
    command: [\"$AGENTS/critic\"]
    timeout: 60s"
	run git burl watch --once --interval 100ms
	grep -qx refused "$AGENTS/attack"
	! grep -q rewrote "$AGENTS/attack" || false
	! grep -q forged "$AGENTS/critic" || false
	[ "$(bucket_of TASK-001)" != DONE ]
}
