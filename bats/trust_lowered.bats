#!/usr/bin/env bats
# DESIGN §24, issue 39 item 6 (trust): turning a gate down needs trust
# like a new command. auto_approve turned on, or checks: lowered, by a
# commit on the workflow branch take no effect until this user runs git
# burl trust: watch keeps the gate as it was trusted and says, in one
# line, what to run.

load helpers
load lifecycle
load watch

setup() {
	watch_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	agent worker 'mkdir -p src && echo ok >"src/ok-$BURL_TASK.txt"; echo "$(readlink /proc/self/ns/pid)" >'"$AGENTS"'/ns'
}

# pushed FILE FROM TO: someone else's commit on the workflow branch that
# changes line FROM of FILE (in the workflow folder) to TO; nobody here
# trusts it.
pushed() {
	sed -i "s|^$2\$|$3|" ".burl/.workflow/$1"
	grep -qx "$3" ".burl/.workflow/$1"
	git -C .burl commit -q -m "turn a gate down" -- ".workflow/$1"
}

@test "auto_approve turned on by a commit nobody here trusted lands nothing under watch until git burl trust; turned off it needs nothing" {
	need_bwrap
	agents_yaml "auto_approve: false
sandbox: bwrap
agents:
  - name: bot
    command: [\"$AGENTS/worker\"]
    timeout: 30s
    retries: 0"
	pushed agents.yaml "auto_approve: false" "auto_approve: true"
	main=$(git rev-parse main)
	run git burl watch --once --interval 100ms
	# The agent ran confined (its own PID namespace), its work waits in QA.
	[ -s "$AGENTS/ns" ]
	[ "$(cat "$AGENTS/ns")" != "$(readlink /proc/self/ns/pid)" ]
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(git rev-parse main)" = "$main" ]
	assert_output_contains "auto_approve"
	assert_output_contains "git burl trust"
	run git burl trust --yes
	assert_success
	assert_output_contains "auto_approve"
	run git burl watch --once --interval 100ms
	[ "$(bucket_of TASK-001)" = DONE ]
	git show main:src/ok-TASK-001.txt | grep -qx ok
	# Turning it off again, by anyone, needs nothing.
	pushed agents.yaml "auto_approve: true" "auto_approve: false"
	git burl add "Next" --affects-glob 'src/**' >/dev/null
	run git burl watch --once --interval 100ms
	[ "$(bucket_of TASK-002)" = QA ]
	refute_output_contains "git burl trust"
}

# github_pr: landing through pull requests on a "GitHub" that is the gh
# test double (as bats/forge_cli.bats sets it up): checks: defaults to
# required there.
github_pr() {
	git config --global url."file://$ORIGIN".insteadOf https://github.com/acme/game.git
	git remote set-url origin https://github.com/acme/game.git
	export GH_LOG="$BATS_TEST_TMPDIR/gh.log" GH_STATE="$BATS_TEST_TMPDIR/gh.state"
	PATH="$BATS_TEST_DIRNAME/doubles:$PATH"
	printf 'landing: pr\npr_merge: auto\npr_merge_style: squash\nchecks: required\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -q -m "config: land through pull requests" -- .workflow/config.yaml
	git burl trust --yes >/dev/null
}

@test "checks: lowered to none by a commit nobody here trusted: watch still reads the required checks (a failing one sends the task back) until git burl trust" {
	need_bwrap
	github_pr
	SANDBOX=bwrap one_agent worker
	pushed config.yaml "checks: required" "checks: none"
	# The agent's work goes to a pull request; its check fails.
	GH_CHECK_STATUS=FAILURE run git burl watch --once --interval 100ms
	[ "$(cat "$AGENTS/ns")" != "$(readlink /proc/self/ns/pid)" ]
	# watch read the failed check and sent the work back.
	all_events | grep '"action":"checks_failed"' | grep -q '"task":"TASK-001"'
	assert_output_contains "checks: none in config.yaml is not trusted here; landing waits for checks: required until you run git burl trust"
	# Trusted, the lowered gate holds: a failing check is not read.
	git burl trust --yes >/dev/null
	git burl add "Next" --affects-glob 'src/**' >/dev/null
	GH_CHECK_STATUS=FAILURE run git burl watch --once --interval 100ms
	refute_output_contains "not trusted here"
	[ "$(bucket_of TASK-002)" = QA ]
	! all_events | grep '"action":"checks_failed"' | grep -q '"task":"TASK-002"' || false
}
