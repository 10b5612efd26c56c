#!/usr/bin/env bats
# DESIGN §19: weakening a gate is a command. A change of the workflow
# branch that empties build_command, removes stub patterns or checked
# extensions, or removes a task's verify needs this user's trust, judged
# against the text last trusted at that place; adding patterns needs
# nothing. Until then gating verbs exit 1 with the one line to run and
# watch claims nothing.

load helpers
load lifecycle
load watch

setup() {
	watch_repo
	MARK="$AGENTS/built" 
	set_config build_command "'touch $MARK'"
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	agent good 'mkdir -p src && printf "package src\n// TODO: later\n" >src/ok.go'
	one_agent good
}

# pushed KEY-LINE-SED: change config.yaml as a push would, not trusted.
pushed() {
	sed -i "$1" .burl/.workflow/config.yaml
	git -C .burl commit -qam "config: weaker"
}

@test "an emptied build_command needs trust: watch claims nothing until git burl trust, which shows it; then it runs nothing" {
	pushed "s|^build_command:.*|build_command: \"\"|"
	run git burl watch --once --interval 100ms
	assert_output_contains "a gate was weakened"
	assert_output_contains "build_command"
	[ "$(bucket_of TASK-001)" = READY ]
	run git burl trust
	assert_failure 1
	assert_output_contains "empty: the gate no longer runs"
	assert_output_contains "- touch $MARK"
	git burl trust --yes >/dev/null
	run git burl trust
	assert_success
	# The stub gate still holds: this agent's TODO is refused.
	RETRIES=0 one_agent good
	run git burl watch --once --interval 100ms
	assert_failure 2
	[ ! -e "$MARK" ]
}

@test "a stub pattern or extension removed needs trust: submit exits 1 naming it; once trusted the gate checks the list as pushed; adding one needs nothing" {
	pushed "/^  - TODO$/d"
	run git burl watch --once --interval 100ms
	assert_output_contains "stub_patterns"
	[ "$(bucket_of TASK-001)" = READY ]
	wt=$(claim_wt TASK-001)
	mkdir -p "$wt/src" && echo 'package src' >"$wt/src/a.go" && git -C "$wt" add -A && git -C "$wt" commit -qm a
	run git burl submit TASK-001
	assert_failure 1
	assert_output_contains "git burl trust"
	run git burl trust
	assert_failure 1
	assert_output_contains "removes TODO: a gate checks less"
	git burl trust --yes >/dev/null
	git burl release TASK-001 >/dev/null
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	[ -e "$MARK" ]
	# More patterns and extensions than were trusted: nothing to ask.
	sed -i 's|^stub_check_extensions: \[|stub_check_extensions: [zig, |; /^  - FIXME$/a\  - NOTDONE' .burl/.workflow/config.yaml
	git -C .burl commit -qam "config: stricter"
	run git burl trust
	assert_success
	# Removing an extension is weakening again.
	pushed 's|^stub_check_extensions: \[zig, rs, |stub_check_extensions: [zig, |'
	run git burl trust --json
	assert_output_contains '"where":"config.yaml:stub_check_extensions"'
}

@test "a task's verify removed by a push needs trust: the queue and approve refuse until git burl trust" {
	git burl block TASK-001 --reason "not now" >/dev/null
	git burl add "Checked" --affects-glob 'lib/**' --verify "touch $BATS_TEST_TMPDIR/verified" >/dev/null
	agent good2 'mkdir -p lib && echo ok >lib/ok.txt'
	one_agent good2
	# Pushed: the verify goes.
	f=$(task_file TASK-002)
	sed -i '/^verify:/d' "$f"
	git -C .burl commit -qam "no verify"
	run git burl watch --once --interval 100ms
	assert_output_contains "verify of TASK-002"
	[ "$(bucket_of TASK-002)" = QA ]
	run git burl approve TASK-002
	assert_failure 1
	assert_output_contains "git burl trust"
	run git burl trust
	assert_output_contains "empty: the gate no longer runs"
	assert_output_contains "- touch $BATS_TEST_TMPDIR/verified"
	git burl trust --yes >/dev/null
	git burl approve TASK-002 >/dev/null
	[ "$(bucket_of TASK-002)" = DONE ]
	[ ! -e "$BATS_TEST_TMPDIR/verified" ]
}
