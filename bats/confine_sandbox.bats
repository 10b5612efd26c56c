#!/usr/bin/env bats
# DESIGN §16: an agent cannot plant anything in the shared repository.
# Under bubblewrap its writes to .git/config, the hooks and .burl/ fail at
# the OS level; without a sandbox they are found after the run
# (run_tampered) and undone; burl's own git commands never run hooks.

load helpers
load lifecycle
load watch

# A watch started in the background by a test stops with it, also when
# the test fails.
teardown() {
	[ -z "${pid:-}" ] || kill -TERM "$pid" 2>/dev/null || true
}

setup() {
	watch_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	MARK="$BATS_TEST_TMPDIR/hook-ran"
}

# planter: a hostile agent that plants a hook in the shared git dir, points
# core.hooksPath elsewhere, moves main, then does its work.
planter() {
	agent planter 'hooks=$(git rev-parse --git-common-dir)/hooks
printf "#!/bin/sh\necho ran >>'"$MARK"'\n" >"$hooks/reference-transaction" && chmod +x "$hooks/reference-transaction"
git config core.hooksPath /tmp/elsewhere
git update-ref refs/heads/main HEAD
mkdir -p src && echo ok >src/ok.txt && git add -A && git commit -qm "the work"'
}

@test "under bubblewrap a hostile agent's hook, config and ref writes fail; its own commits land" {
	need_bwrap
	planter
	SANDBOX=bwrap one_agent planter
	main=$(git rev-parse main)
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	[ ! -e "$(git rev-parse --git-common-dir)/hooks/reference-transaction" ]
	[ -z "$(git config --get core.hooksPath)" ]
	[ ! -e "$MARK" ]
	grep -q 'Read-only file system' .burl/.workflow/logs/TASK-001/*-watch-*.log
	# main moved only by the approve, onto the agent's commit.
	git merge-base --is-ancestor "$main" main
	git show main:src/ok.txt | grep -qx ok
	git log -1 --format=%s main | grep -qx "the work"
	! grep -q '"action":"run_tampered"' <(all_events) || false
}

@test "without a sandbox the planted hook and config are found after the run, undone, and never ran in burl's commits" {
	planter
	SANDBOX=none RETRIES=0 one_agent planter
	run git burl watch --once --interval 100ms
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ ! -e "$(git rev-parse --git-common-dir)/hooks/reference-transaction" ]
	[ -z "$(git config --get core.hooksPath)" ]
	[ ! -e "$MARK" ]
	grep -q '"action":"run_tampered"' <(all_events)
	grep -q 'blocked_reason: .*changed what no run may change' "$(task_file TASK-001)"
	# Watch said once at start that it runs without a sandbox.
	assert_output_contains "sandbox: none"
}

@test "sandbox: none is a choice the user of this machine must trust" {
	agent good 'mkdir -p src && echo ok >src/ok.txt'
	one_agent good
	# Someone turns the sandbox off in a commit this user did not trust.
	sed -i '1i sandbox: none' .burl/.workflow/agents.yaml
	git -C .burl commit -qam "agents without a sandbox"
	run git burl watch --once --interval 100ms
	assert_failure 1
	assert_output_contains "sandbox in agents.yaml"
	assert_output_contains "git burl trust"
	[ "$(bucket_of TASK-001)" = READY ]
	git burl trust --yes >/dev/null
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "burl's own git commands never run a hook planted in the repository" {
	hooks=$(git rev-parse --git-common-dir)/hooks
	printf '#!/bin/sh\necho ran >>"%s"\n' "$MARK" >"$hooks/reference-transaction"
	chmod +x "$hooks/reference-transaction"
	git burl add "Second" >/dev/null
	git burl claim TASK-001 >/dev/null
	[ ! -e "$MARK" ]
	# The user's own git still runs it: it is not removed, only not run by burl.
	git commit -q --allow-empty -m "mine"
	[ -s "$MARK" ]
}

@test "under bubblewrap an agent cannot add a task with a command: .burl/ is read-only to it, its add only proposes" {
	need_bwrap
	agent sneaky "git burl add 'Two' --verify 'touch $MARK' >$AGENTS/add.out 2>&1
touch '$REPO/.burl/.workflow/READY/TASK-009-planted.md' 2>>$AGENTS/add.out
mkdir -p src && echo ok >src/ok.txt"
	SANDBOX=bwrap one_agent sneaky
	run git burl watch --once --interval 100ms
	assert_success
	grep -qi 'read-only file system' "$AGENTS/add.out"
	[ -z "$(find .burl/.workflow -name 'TASK-009*')" ]
	# Its add is a proposal watch records (DESIGN §27): no agent claims it,
	# and its verify is not trusted.
	[ "$(bucket_of TASK-002)" = PROPOSED ]
	git burl trust --json | jq -e '.commands | map(select(.where | contains("TASK-002"))) | length == 1'
	[ ! -e "$MARK" ]
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "under bubblewrap a file a human leaves in .burl/ during a run is not the run's: the task lands and the file stays" {
	need_bwrap
	agent waiter 'touch '"$AGENTS"'/started
i=0
while [ ! -e '"$AGENTS"'/go ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mkdir -p src && echo ok >src/ok.txt'
	SANDBOX=bwrap one_agent waiter
	git burl watch --once --interval 100ms >"$BATS_TEST_TMPDIR/watch.out" 2>&1 &
	pid=$!
	wait_until 20 test -e "$AGENTS/started"
	echo "my notes" >.burl/by-hand.txt
	touch "$AGENTS/go"
	wait "$pid"
	pid=
	[ "$(bucket_of TASK-001)" = DONE ]
	! grep -q '"action":"run_tampered"' <(all_events) || false
	[ "$(cat .burl/by-hand.txt)" = "my notes" ]
}

@test "a box whose sandbox_write names .burl/ lets the agent write there: what it left is found after the run and undone" {
	need_bwrap
	agent scribbler 'echo planted >'"$REPO"'/.burl/planted.txt
mkdir -p src && echo ok >src/ok.txt'
	agents_yaml "auto_approve: true
sandbox: bwrap
sandbox_write: [\"$AGENTS\", \"$REPO/.burl\"]
agents:
  - name: bot
    command: [\"$AGENTS/scribbler\"]
    retries: 0"
	run git burl watch --once --interval 100ms
	grep -q '"action":"run_tampered"' <(all_events)
	[ ! -e .burl/planted.txt ]
	[ "$(bucket_of TASK-001)" != DONE ]
}

@test "sandbox: auto where bubblewrap cannot run refuses to start agents and names both ways out" {
	agent good 'mkdir -p src && echo ok >src/ok.txt'
	one_agent good
	nobw=$(path_without_bwrap)
	PATH=$nobw run git burl watch --once --interval 100ms
	assert_failure 1
	assert_output_contains "apt-get install bubblewrap"
	assert_output_contains "sandbox: none"
	assert_output_contains "git burl trust"
	[ "$(bucket_of TASK-001)" = READY ]
	[ ! -d "$AGENTS/prompts" ]
	# sandbox: none, once trusted, is the other way out.
	SANDBOX=none one_agent good
	PATH=$nobw run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "a trusted change of sandbox: and sandbox_hide: reaches a running watch at its next run" {
	need_bwrap
	export MY_SECRET=s3cret
	# The shared git dir: the agent's own (git rev-parse --git-common-dir)
	# is its run's, writable either way.
	agent prober 'if touch '"$REPO"'/.git/probe-$BURL_TASK 2>/dev/null; then w=writable; else w=read-only; fi
echo "$w ${MY_SECRET:-unset}" >'"$AGENTS"'/seen-$BURL_TASK
d=src
[ "$BURL_TASK" = TASK-001 ] || d=task-002
mkdir -p "$d" && echo ok >"$d/ok.txt"'
	git burl add "Second" --affects-glob 'task-002/**' >/dev/null
	SANDBOX=none one_agent prober
	# Only TASK-001 is claimable until TASK-002 is unblocked.
	git burl block TASK-002 --reason "later" >/dev/null
	git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/watch.out" 2>&1 &
	pid=$!
	wait_until 20 test -s "$AGENTS/seen-TASK-001"
	wait_until 20 bucket_is TASK-001 DONE
	agents_yaml "auto_approve: true
sandbox: bwrap
sandbox_hide: [\"~/.ssh\", MY_SECRET]
agents:
  - name: bot
    command: [\"$AGENTS/prober\"]"
	git burl unblock TASK-002 >/dev/null
	wait_until 20 test -s "$AGENTS/seen-TASK-002"
	wait_until 20 bucket_is TASK-002 DONE
	kill -TERM "$pid"
	wait "$pid" || true
	[ "$(cat "$AGENTS/seen-TASK-001")" = "writable s3cret" ]
	[ "$(cat "$AGENTS/seen-TASK-002")" = "read-only unset" ]
	grep -q "sandbox: bwrap from the next run on" "$BATS_TEST_TMPDIR/watch.out"
}
