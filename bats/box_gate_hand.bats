#!/usr/bin/env bats
# The gate box by hand, agents.yaml or not (DESIGN §24): a project with no
# agents at all still runs build_command and a task's verify in the gate
# box wherever burl runs them — approve, validate — with
# config.yaml's gate_network and sandbox_write (trusted); sandbox: none
# (trusted) turns it off; where bubblewrap cannot run, the gates run
# unconfined, saying so, unless config.yaml asks for sandbox: bwrap.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

setup() {
	need_bwrap
	new_burl_repo
	OUT="$BATS_TEST_TMPDIR/gate-out"
	mkdir -p "$OUT"
	echo "https://u:CRED-SECRET@example.invalid" >"$HOME/.git-credentials"
	printf 'sandbox_write: ["%s"]\n' "$OUT" >>"$REPO/.burl/.workflow/config.yaml"
	set_config build_command '"if [ -f src/check.sh ]; then sh src/check.sh; fi"'
	CHECK='exec >>"'"$OUT"'/report" 2>&1
echo "creds [$(cat "$HOME/.git-credentials" 2>/dev/null)]"
if perl -MIO::Socket::INET -e "IO::Socket::INET->new(PeerAddr => q(127.0.0.1), PeerPort => \$ARGV[0], Timeout => 2) or exit 1" "$(cat "'"$OUT"'/port" 2>/dev/null || echo 1)"; then echo "listener reached"; else echo "listener refused"; fi
exit 0'
	listen
}

teardown() { kill "$(cat "$BATS_TEST_TMPDIR/listener" 2>/dev/null)" 2>/dev/null || true; }

# listen: a TCP listener on 127.0.0.1, its port in $OUT/port.
listen() {
	perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 5, ReuseAddr => 1) or die; open(F, ">", $ARGV[0]) or die; print F $s->sockport, "\n"; close F; while ($c = $s->accept) { close $c }' "$OUT/port" &
	echo $! >"$BATS_TEST_TMPDIR/listener"
	wait_until 10 test -s "$OUT/port"
}

# tests_task: TASK-001 claimed by hand, its test file committed.
tests_task() {
	git burl add "Tests" --affects-glob 'src/**' >/dev/null
	wt=$(claim_wt TASK-001)
	mkdir -p "$wt/src"
	printf '%s\n' "$CHECK" >"$wt/src/check.sh"
	git -C "$wt" add src && git -C "$wt" commit -qm "tests"
}

@test "without agents.yaml, a human's approve runs the test file in the gate box: no hidden file, no listener on 127.0.0.1" {
	[ ! -e "$REPO/.burl/.workflow/agents.yaml" ]
	tests_task
	run git -C "$wt" burl submit TASK-001
	assert_success
	run git burl approve TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	grep -qx 'creds \[\]' "$OUT/report"
	grep -qx 'listener refused' "$OUT/report"
	! grep -q 'listener reached\|CRED-SECRET' "$OUT/report" || false
}

@test "without agents.yaml, gate_network: true in config.yaml waits for trust, then gives validate's gates the network" {
	tests_task
	git -C "$wt" burl submit TASK-001 >/dev/null
	: >"$OUT/report"
	printf 'gate_network: true\n' >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -qam "gate_network"
	run git burl validate TASK-001
	assert_failure
	assert_output_contains "gate_network in config.yaml"
	[ ! -s "$OUT/report" ]
	git burl trust --yes >/dev/null
	run git burl validate TASK-001
	grep -qx 'listener reached' "$OUT/report"
	grep -qx 'creds \[\]' "$OUT/report"
}

@test "sandbox: none in config.yaml, trusted, runs the gates unconfined" {
	tests_task
	git -C "$wt" burl submit TASK-001 >/dev/null
	printf 'sandbox: none\n' >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -qam "sandbox: none"
	: >"$OUT/report"
	run git burl validate TASK-001
	assert_failure
	assert_output_contains "sandbox in config.yaml"
	[ ! -s "$OUT/report" ]
	git burl trust --yes >/dev/null
	run git burl approve TASK-001
	assert_success
	grep -qx 'creds \[https://u:CRED-SECRET@example.invalid\]' "$OUT/report"
	grep -qx 'listener reached' "$OUT/report"
}

@test "where bubblewrap cannot run, gates without agents.yaml run unconfined and say so; sandbox: bwrap refuses them" {
	tests_task
	git -C "$wt" burl submit TASK-001 >/dev/null
	nobwrap=$(path_without_bwrap)
	: >"$OUT/report"
	PATH=$nobwrap run git burl validate TASK-001
	assert_output_contains "build and verify commands run unconfined: bwrap is not installed"
	grep -qx 'listener reached' "$OUT/report"
	printf 'sandbox: bwrap\n' >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -qam "sandbox: bwrap"
	: >"$OUT/report"
	PATH=$nobwrap run git burl validate TASK-001
	assert_failure
	assert_output_contains "config.yaml asks for sandbox: bwrap"
	[ ! -s "$OUT/report" ]
}
