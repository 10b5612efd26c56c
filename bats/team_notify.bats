#!/usr/bin/env bats
# notify (DESIGN §18): commands given one event's JSON on stdin for the
# actions they list; a notifier that fails or hangs changes nothing else.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle

# notify_config YAML: append a notify list to config.yaml and commit it
# (its user trusts the commands in it: git burl trust).
notify_config() {
	printf '%s\n' "$1" >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: notify" -- .workflow/config.yaml || return 1
	trust_all
}

@test "a notifier gets exactly the events it listens for, each as one JSON object on stdin" {
	new_burl_repo
	got="$BATS_TEST_TMPDIR/got.ndjson"
	cat >"$BATS_TEST_TMPDIR/notifier" <<SH
#!/bin/sh
cat >>"$got"
SH
	chmod +x "$BATS_TEST_TMPDIR/notifier"
	notify_config "notify:
  - on: [approve, block]
    command: [\"$BATS_TEST_TMPDIR/notifier\"]"
	git burl add "One" --affects src/one.txt >/dev/null
	git burl add "Two" --affects src/two.txt >/dev/null
	submitted TASK-001 src/one.txt one >/dev/null
	git burl approve TASK-001 >/dev/null
	git burl claim TASK-002 >/dev/null
	git burl block TASK-002 --reason "needs a decision" >/dev/null
	[ "$(wc -l <"$got")" = 2 ]
	[ "$(jq -r '.action + " " + .task' "$got" | paste -sd,)" = "approve TASK-001,block TASK-002" ]
	[ "$(jq -r 'select(.action == "block") | .details.reason' "$got")" = "needs a decision" ]
	# The object is the event log's own line for it.
	grep -qxF "$(sed -n 2p "$got")" <(all_events)
}

@test "a failing notifier and a hanging one (killed after 10 s) are logged; the transition happens and exits 0" {
	new_burl_repo
	pids="$BATS_TEST_TMPDIR/pids"
	cat >"$BATS_TEST_TMPDIR/hang" <<SH
#!/bin/sh
sleep 60 &
echo \$! >>"$pids"
echo \$\$ >>"$pids"
wait
SH
	chmod +x "$BATS_TEST_TMPDIR/hang"
	notify_config "notify:
  - on: [block]
    command: [sh, -c, \"exit 7\"]
  - on: [block]
    command: [\"$BATS_TEST_TMPDIR/hang\"]"
	git burl add "One" --affects src/one.txt >/dev/null
	git burl claim TASK-001 >/dev/null
	SECONDS=0
	run --separate-stderr git burl block TASK-001 --reason "stuck"
	assert_success
	[ "$SECONDS" -lt 20 ]
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	grep -q 'notify command "sh" for block: exit status 7' <<<"$stderr"
	grep -q "notify command \"$BATS_TEST_TMPDIR/hang\" for block: killed after the timeout" <<<"$stderr"
	grep -q 'killed after the timeout' .burl/.workflow/logs/notify.log
	# Nothing of the notifier is left running, its background child included.
	[ "$(wc -l <"$pids")" = 2 ]
	# (A zombie waiting for whoever inherited it to reap it is not running.)
	while read -r p; do
		st=$(ps -o stat= -p "$p") || continue
		[[ $st == Z* ]]
	done <"$pids"
	[ -z "$(locks)" ]
	[ -z "$(git -C .burl status --porcelain)" ]
}

@test "a notify command nobody trusted on this machine is not run; the transition still happens" {
	new_burl_repo
	printf 'notify:\n  - on: [block]\n    command: [touch, %s]\n' "$BATS_TEST_TMPDIR/ran" >>.burl/.workflow/config.yaml
	git -C .burl commit -q -am "config: notify"
	git burl add "One" --affects src/one.txt >/dev/null
	git burl claim TASK-001 >/dev/null
	run --separate-stderr git burl block TASK-001 --reason "stuck"
	assert_success
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ ! -e "$BATS_TEST_TMPDIR/ran" ]
	grep -q 'notify command "touch" not run' <<<"$stderr"
	grep -q 'notify command "touch" not run: not trusted on this machine (git burl trust shows it and asks)' <<<"$stderr"
	git burl trust --yes >/dev/null
	git burl unblock TASK-001 >/dev/null
	git burl claim TASK-001 >/dev/null
	git burl block TASK-001 --reason "again" >/dev/null 2>&1
	[ -e "$BATS_TEST_TMPDIR/ran" ]
}
