#!/usr/bin/env bats
# A newcomer's first hour: scope, failures that explain themselves, and the
# small messages that must not mislead.

load helpers
load lifecycle

setup() {
	new_burl_repo
}

@test "git burl scope widens a DOING task's scope as a logged transition with its reason" {
	git burl add "Jump" --affects src/jump.go >/dev/null
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file src/jump.go 'package src' && commit_file src/audio/mixer.go 'package audio')
	run git -C "$wt" burl submit
	assert_failure 2
	assert_output_contains "scope: revert the changes to those files, or, if the task needs them, widen its scope: git burl scope TASK-001 --affects src/audio/mixer.go"
	assert_output_contains ".burl/.workflow/DOING/TASK-001-jump.md"

	run git burl scope TASK-001 --affects src/audio/mixer.go
	assert_failure 1
	assert_output_contains "needs --reason"
	run git burl scope TASK-001 --reason "nothing asked"
	assert_failure 1
	run git burl scope TASK-001 --affects ../outside --reason "x"
	assert_failure 1
	run git burl scope TASK-001 --remove src/nope.go --reason "x"
	assert_failure 1
	assert_output_contains "no such entry"

	before=$(git -C .burl rev-parse HEAD)
	run git burl scope TASK-001 --affects src/audio/mixer.go --must-not-touch 'src/net/**' --reason "the jump sound needs a mixer channel"
	assert_success
	assert_output_contains "+ affects: src/audio/mixer.go"
	[ "$(bucket_of TASK-001)" = DOING ]
	[ "$(git -C .burl rev-parse HEAD)" != "$before" ]
	grep -q "### Scope changed" "$(task_file TASK-001)"
	grep -q "Reason: the jump sound needs a mixer channel" "$(task_file TASK-001)"
	run git burl log --task TASK-001 --action scope --json
	assert_success
	assert_output_contains '"action":"scope"'
	assert_output_contains "mixer channel"

	run git -C "$wt" burl submit
	assert_success
	[ "$(bucket_of TASK-001)" = QA ]
	# Only READY and DOING tasks: QA goes back through reject.
	run git burl scope TASK-001 --remove src/audio/mixer.go --reason "x"
	assert_failure 1

	git burl add "Run" --affects src/run.go >/dev/null
	run git burl scope TASK-002 --remove src/run.go --affects-glob 'src/run/**' --reason "a package now" --json
	assert_success
	[ "$(jq -c .change <<<"$output")" = '{"added":{"affects_globs":["src/run/**"]},"removed":{"affects":["src/run.go"]}}' ]
	[ "$(jq -c .task.affects_globs <<<"$output")" = '["src/run/**"]' ]
}

@test "add warns when a task has no affects or affects_globs" {
	run git burl add "Anything"
	assert_success
	assert_output_contains "TASK-001 has no --affects or --affects-glob"
	assert_output_contains "git burl scope TASK-001"
	run git burl add "Scoped" --affects-glob 'src/**'
	assert_success
	refute_output_contains "warning"
}

@test "each gate failure gets its own fix: stub lines; build output's last 20 lines and the log" {
	git burl add "Jump" --affects src/jump.go >/dev/null
	wt=$(claim_wt TASK-001)
	(cd "$wt" && printf 'package src\n// TODO later\n' >src/jump.go && git add -A && git commit -q --no-verify -m stub)
	run git -C "$wt" burl submit
	assert_failure 2
	assert_output_contains "stubs: replace the added lines at src/jump.go:2 with real code"
	refute_output_contains "fix the build"
	refute_output_contains "scope:"

	(cd "$wt" && commit_file src/jump.go 'package src')
	git -C "$wt" burl submit >/dev/null
	set_config build_command '"for i in $(seq 1 30); do echo line-$i; done; exit 3"'
	run git burl validate TASK-001
	assert_failure 2
	assert_output_contains "last 20 lines of its output:"
	assert_output_contains "| line-30"
	assert_output_contains "| line-11"
	refute_output_contains "| line-10"
	assert_output_contains "build: fix what the last lines of its output above show"
	assert_output_contains "log: .burl/.workflow/logs/TASK-001/"
	refute_output_contains "stubs:"
	run git burl validate TASK-001 --json
	[ "$(jq -r '.error.violations[0].tail' <<<"$output" | wc -l)" -eq 20 ]
}

@test "errors start with error: off a terminal and under NO_COLOR, with the emoji only on a terminal" {
	run git burl show TASK-404
	assert_failure 1
	[[ "${lines[0]}" == "error: "* ]] || { echo "$output"; false; }
	refute_output_contains "❌"
	command -v script >/dev/null || skip "script(1) is needed for a terminal"
	run script -qec "git burl show TASK-404" /dev/null
	assert_output_contains "❌"
	run script -qec "NO_COLOR=1 git burl show TASK-404" /dev/null
	refute_output_contains "❌"
	assert_output_contains "error: "
}

@test "the actor is never unknown: without BURL_ACTOR and USER it is id -un@host" {
	git burl add "One" --affects a.txt >/dev/null
	run env -u BURL_ACTOR -u USER -u USERNAME git burl claim TASK-001
	assert_success
	[ "$(field TASK-001 assigned_to)" = "$(id -un)@$(uname -n)" ] || { echo "assigned_to: $(field TASK-001 assigned_to)"; false; }
	BURL_ACTOR=agent-7 git burl release TASK-001 >/dev/null
	BURL_ACTOR=agent-7 git burl claim TASK-001 >/dev/null
	[ "$(field TASK-001 assigned_to)" = "agent-7" ]
}

@test "reject and block without --reason name the task in their hint; lock alone lists" {
	git burl add "One" --affects a.txt >/dev/null
	git burl add "Two" --affects b.txt >/dev/null
	run git burl block TASK-002
	assert_failure 1
	assert_output_contains 'git burl block TASK-002 --reason'
	run git burl reject 2
	assert_failure 1
	assert_output_contains 'git burl reject TASK-002 --reason'
	run git burl lock
	assert_success
	assert_output_contains "No locks are held."
	run git burl lock --json
	assert_success
	[ "$(jq -c .locks <<<"$output")" = "[]" ]
}

@test "--version without a linked-in version comes from the build info" {
	command -v go >/dev/null || skip "go is not installed"
	# The machine's module and build caches, not the test's empty HOME.
	real_home=$(getent passwd "$(id -un)" | cut -d: -f6)
	export GOMODCACHE GOCACHE
	GOMODCACHE=$(HOME=$real_home go env GOMODCACHE)
	GOCACHE=$(HOME=$real_home go env GOCACHE)
	# A plain clone, as `go install` builds: no -ldflags, VCS stamping on.
	git clone -q "$BATS_TEST_DIRNAME/.." "$BATS_TEST_TMPDIR/src"
	cd "$BATS_TEST_TMPDIR/src"
	sha=$(git rev-parse --short=12 HEAD)
	GOFLAGS=-buildvcs=true GOPROXY=off go build -o "$BATS_TEST_TMPDIR/git-burl" ./cmd/git-burl
	run "$BATS_TEST_TMPDIR/git-burl" --version
	assert_success
	[[ "$output" == "git-burl version "*"$sha"* ]] || { echo "$output (HEAD $sha)"; false; }
}

@test "claim of a task whose dependency is BLOCKED says it waits for a human and how to see why" {
	git burl add "Base" >/dev/null 2>&1
	git burl add "On top" --depends-on TASK-001 >/dev/null 2>&1
	git burl block TASK-001 --reason "needs the vendor's key" >/dev/null
	run git burl claim TASK-002
	assert_failure 4
	assert_output_contains "TASK-001, which is BLOCKED: it waits for a human"
	assert_output_contains "git burl show TASK-001"
	run git burl status
	assert_output_contains "waits for TASK-001 to be DONE (TASK-001 is BLOCKED: git burl show TASK-001 says why)"
}

@test "a task unblocked and claimed again is told why it was BLOCKED" {
	git burl add "Needs a key" --affects src/jump.go >/dev/null
	git burl claim TASK-001 >/dev/null
	git burl block TASK-001 --reason "needs the API key from ops (ticket OPS-12)" >/dev/null
	git burl unblock TASK-001 >/dev/null
	run git burl claim TASK-001
	assert_success
	assert_output_contains "TASK-001 was BLOCKED before (Unblocked"
	assert_output_contains "needs the API key from ops (ticket OPS-12)"
	grep -q "^Was blocked: needs the API key from ops (ticket OPS-12)" "$(task_file TASK-001)"
	[ "$(all_events | jq -r 'select(.action == "unblock") | .details.was_blocked')" = "needs the API key from ops (ticket OPS-12)" ]
}
