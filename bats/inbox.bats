#!/usr/bin/env bats
# DESIGN §27: git burl inbox lists what waits for a human, one line each
# with the command that answers it; every command runs as printed.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

# run_line LINE: run one line of the inbox as a person would paste it into
# a shell on a terminal (git burl trust asks there), answering yes.
run_line() {
	yes y | head -n 20 | script -qec "$1" /dev/null
}

# the_afternoon: a task whose agent asked for wider scope (a real watch
# run), a blocked task, a held one, a dead lock and an untrusted command.
the_afternoon() {
	watch_repo
	git burl add "Needs base" --affects-glob "src/**" >/dev/null
	agent asker 'git burl scope "$BURL_TASK" --affects base.go --reason "I need base.go" >/dev/null 2>&1
mkdir -p src && echo ok >src/ok.txt && echo changed >base.go'
	SANDBOX=none RETRIES=3 one_agent asker
	run git burl watch --once --interval 100ms
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	git burl add "Blocked by hand" >/dev/null
	git burl block TASK-002 --reason "which database? a human decides" >/dev/null
	git burl add "Held" >/dev/null
	git burl hold TASK-003 --reason "not before the release" >/dev/null
	git burl add "Locked" >/dev/null
	sh -c 'exit 0' &
	local dead=$!
	wait "$dead"
	printf '{"owner":"agent-7","host":"%s","pid":%s,"created_at":"%s","action":"claim"}\n' "$(uname -n)" "$dead" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >.burl/.workflow/locks/TASK-004.lock
	# A build command pushed by someone else: not trusted here.
	sed -i 's|^build_command:.*|build_command: "test -d src"|' .burl/.workflow/config.yaml
	git -C .burl commit -q -m "config: build_command" -- .workflow/config.yaml
}

@test "inbox on a quiet workflow says nothing waits" {
	new_burl_repo
	git burl add "Plain" >/dev/null
	run git burl inbox
	assert_success
	[ "$output" = "nothing waits for you" ]
	run git burl inbox --json
	assert_success
	[ "$(jq -c .items <<<"$output")" = "[]" ]
	[ "$(jq -r .ok <<<"$output")" = true ]
}

@test "the afternoon's inbox lists each decision with a command that works as printed, until nothing waits" {
	the_afternoon
	run git burl inbox --json
	assert_success
	[ "$(jq -r '[.items[] | .kind + ":" + (.task // "")] | join(" ")' <<<"$output")" = "blocked:TASK-002 scope_request:TASK-001 dead_lock:TASK-004 held:TASK-003 untrusted:" ]
	[ "$(jq -r '.items[] | select(.kind == "scope_request") | .command' <<<"$output")" = "git burl scope TASK-001 --affects base.go --reason 'granted: I need base.go'" ]
	[ "$(jq -r '.items[] | select(.kind == "held") | .command' <<<"$output")" = "git burl unhold TASK-003" ]
	[ "$(jq -r '.items[] | select(.kind == "dead_lock") | .command' <<<"$output")" = "git burl lock clear TASK-004 --force" ]
	jq -r '.items[].command' <<<"$output" >"$BATS_TEST_TMPDIR/commands"

	run git burl inbox
	assert_success
	[ "${#lines[@]}" -eq 5 ]
	# Each line starts with its command, the rest is a shell comment.
	local i=0 line cmd
	while IFS= read -r cmd; do
		[[ "${lines[$i]}" == "$cmd"*"  # "* ]]
		i=$((i + 1))
	done <"$BATS_TEST_TMPDIR/commands"
	for line in "${lines[@]}"; do
		run_line "$line" || { echo "failed as printed: $line" >&2; return 1; }
	done
	[ "$(field TASK-001 scope_request)" = null ]
	[ ! -e .burl/.workflow/locks/TASK-004.lock ]
	[ "$(bucket_of TASK-002)" = READY ]
	[ -z "$(field TASK-003 held_reason)" ] || [ "$(field TASK-003 held_reason)" = null ]

	# Granting the scope leaves TASK-001 BLOCKED: its unblock is next.
	run git burl inbox --json
	[ "$(jq -r '[.items[] | .kind + ":" + (.task // "")] | join(" ")' <<<"$output")" = "blocked:TASK-001" ]
	run git burl inbox
	run_line "${lines[0]}"
	[ "$(bucket_of TASK-001)" = READY ]
	run git burl inbox
	assert_success
	[ "$output" = "nothing waits for you" ]
}

@test "a BLOCKED task waiting on a BLOCKED dependency is not listed twice; its dependency is" {
	new_burl_repo
	git burl add "Base" >/dev/null
	git burl add "Top" --depends-on TASK-001 >/dev/null
	git burl block TASK-001 --reason "waits for a decision" >/dev/null
	git burl block TASK-002 --reason "base first" >/dev/null
	run git burl inbox --json
	assert_success
	[ "$(jq -r '[.items[] | .kind + ":" + .task + ":" + .command] | join(" ")' <<<"$output")" = "blocked:TASK-001:git burl unblock TASK-001" ]
}
