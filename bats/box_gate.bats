#!/usr/bin/env bats
# The project's code is agent code wherever burl runs it (DESIGN §24,
# issue 39 item 3): build_command and a task's verify run in a gate box —
# the checkout writable, the repository's .git read-only, credentials and
# BURL_FORGE_TOKEN hidden, a PID namespace of its own, no network unless
# gate_network: true is trusted — in watch and in a human's approve alike.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

setup() {
	need_bwrap
	watch_repo
	OUT="$BATS_TEST_TMPDIR/gate-out"
	mkdir -p "$OUT"
	echo "https://u:CRED-SECRET@example.invalid" >"$HOME/.git-credentials"
	# The build runs the task's own test file, whatever the agent wrote.
	set_config build_command '"if [ -f src/check.sh ]; then sh src/check.sh; fi"'
	# The test file: what it could read and do, said in $OUT (writable
	# to gates through agents.yaml sandbox_write).
	CHECK='exec >>"'"$OUT"'/report" 2>&1
echo "creds [$(cat "$HOME/.git-credentials" 2>/dev/null)]"
echo "token [${BURL_FORGE_TOKEN:-}]"
if echo planted >"'"$REPO"'/.git/hooks/post-merge" 2>/dev/null; then echo "hooks written"; else echo "hooks refused"; fi
if perl -MIO::Socket::INET -e "IO::Socket::INET->new(PeerAddr => q(127.0.0.1), PeerPort => \$ARGV[0], Timeout => 2) or exit 1" "$(cat "'"$OUT"'/port" 2>/dev/null || echo 1)"; then echo "listener reached"; else echo "listener refused"; fi
setsid sh -c "sleep 3; echo alive >>'"$OUT"'/daemon" </dev/null >/dev/null 2>&1 &
exit 0'
}

# listen: a TCP listener on 127.0.0.1, its port in $OUT/port.
listen() {
	perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 5, ReuseAddr => 1) or die; open(F, ">", $ARGV[0]) or die; print F $s->sockport, "\n"; close F; while ($c = $s->accept) { close $c }' "$OUT/port" &
	echo $! >"$BATS_TEST_TMPDIR/listener"
	wait_until 10 test -s "$OUT/port"
}

stop_listening() { kill "$(cat "$BATS_TEST_TMPDIR/listener")" 2>/dev/null || true; }

gate_agents() {
	agents_yaml "auto_approve: true
sandbox: bwrap
${GATE_NETWORK:+gate_network: true
}sandbox_write: [\"$AGENTS\", \"$OUT\"]
agents:
  - name: bot
    command: [\"$AGENTS/$1\"]"
}

@test "under auto_approve, the agent's test file run by build_command cannot read ~/.git-credentials or BURL_FORGE_TOKEN, cannot write .git/hooks and leaves no daemon" {
	git burl add "Tests" --affects-glob 'src/**' >/dev/null
	agent tester 'mkdir -p src && cat >src/check.sh <<'"'"'SH'"'"'
'"$CHECK"'
SH'
	gate_agents tester
	BURL_FORGE_TOKEN=tok-SECRET run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	grep -qx 'creds \[\]' "$OUT/report"
	grep -qx 'token \[\]' "$OUT/report"
	grep -qx 'hooks refused' "$OUT/report"
	! grep -q 'written' "$OUT/report" || false
	[ ! -e "$REPO/.git/hooks/post-merge" ]
	sleep 4
	[ ! -e "$OUT/daemon" ]
}

@test "a human's git burl approve runs the gates in the gate box: the test file cannot read a hidden file nor reach a listener on 127.0.0.1" {
	git burl add "Tests" --affects-glob 'src/**' >/dev/null
	agent none true
	gate_agents none
	listen
	wt=$(claim_wt TASK-001)
	mkdir -p "$wt/src"
	printf '%s\n' "$CHECK" >"$wt/src/check.sh"
	git -C "$wt" add src && git -C "$wt" commit -qm "tests"
	git -C "$wt" burl submit TASK-001 >/dev/null
	: >"$OUT/report"
	BURL_FORGE_TOKEN=tok-SECRET run git burl approve TASK-001
	stop_listening
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	grep -qx 'creds \[\]' "$OUT/report"
	grep -qx 'listener refused' "$OUT/report"
	! grep -q 'listener reached' "$OUT/report" || false
}

@test "gate_network: true, trusted, gives the gates the network" {
	git burl add "Tests" --affects-glob 'src/**' >/dev/null
	agent none true
	gate_agents none
	listen
	wt=$(claim_wt TASK-001)
	mkdir -p "$wt/src"
	printf '%s\n' "$CHECK" >"$wt/src/check.sh"
	git -C "$wt" add src && git -C "$wt" commit -qm "tests"
	git -C "$wt" burl submit TASK-001 >/dev/null
	run git burl validate TASK-001
	grep -qx 'listener refused' "$OUT/report"
	! grep -q 'listener reached' "$OUT/report" || false
	: >"$OUT/report"
	GATE_NETWORK=1 gate_agents none
	run git burl validate TASK-001
	stop_listening
	grep -qx 'listener reached' "$OUT/report"
}

@test "worktree_setup's command runs in the gate box: it writes the new worktree, but cannot read ~/.git-credentials, write .git/hooks or reach 127.0.0.1" {
	git burl add "Setup" --affects-glob 'src/**' >/dev/null
	agent none true
	gate_agents none
	listen
	# The setup script lives outside the repository, as a team's often
	# does; what it could read and do is said in $OUT.
	printf '%s\n' "echo prepared >prepared.txt" "$CHECK" >"$BATS_TEST_TMPDIR/setup.sh"
	cat >>"$REPO/.burl/.workflow/config.yaml" <<YAML
worktree_setup:
  command: ["sh", "$BATS_TEST_TMPDIR/setup.sh"]
YAML
	git -C "$REPO/.burl" commit -qam "worktree_setup"
	git burl trust --yes >/dev/null
	: >"$OUT/report"
	BURL_FORGE_TOKEN=tok-SECRET run git burl claim TASK-001
	stop_listening
	assert_success
	wt=$(git burl worktree TASK-001)
	[ "$(cat "$wt/prepared.txt")" = prepared ]
	grep -qx 'creds \[\]' "$OUT/report"
	grep -qx 'token \[\]' "$OUT/report"
	grep -qx 'hooks refused' "$OUT/report"
	grep -qx 'listener refused' "$OUT/report"
	[ ! -e "$REPO/.git/hooks/post-merge" ]
}
