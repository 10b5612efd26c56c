#!/usr/bin/env bats
# DESIGN §15: a watcher submits only what it still holds; each watcher
# process has its own identity in the lease; lease_grace; a lease that does
# not parse, or whose local holder is gone, is taken over.

load helpers
load lifecycle
load watch

setup() {
	watch_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	# The agent naps $NAP seconds, then says which watcher ran it.
	agent napper 'sleep "${NAP:-0}"; mkdir -p src && echo "$WHO" >src/who.txt'
	one_agent napper
}

teardown() {
	[ -z "${A:-}" ] || { kill -CONT "$A" 2>/dev/null; kill -TERM "$A" 2>/dev/null; } || true
	# A failed test must not leave a watcher holding bats' output open.
	local p
	for p in ${agit:-} ${bgit:-}; do
		kill -TERM "$p" 2>/dev/null || true
	done
}

# lease SECONDS GRACE: short leases for the test.
lease() {
	printf 'lease_seconds: %s\nlease_grace: %s\n' "$1" "$2" >>.burl/.workflow/config.yaml
	git -C .burl commit -qam "short leases"
}

no_locks() { [ -z "$(ls .burl/.workflow/locks/)" ]; }
bucket_is() { [ "$(bucket_of "$1")" = "$2" ]; }
submits() { all_events | grep -c '"action":"submit"' || true; }

@test "a watcher paused past its lease resumes after another watcher of the same name took the task over: it submits nothing" {
	lease 2 0s
	WHO=A NAP=4 git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/a.log" 2>&1 &
	agit=$!
	wait_until 10 bucket_is TASK-001 DOING
	# Paused once its run started: both watchers' runs are counted below.
	wait_until 10 run_started TASK-001
	A=$(pgrep -P "$agit" -f git-burl-watch)
	[ -n "$A" ]
	kill -STOP "$A"
	sleep 2.5
	# Same agent, same host: only the watcher id tells the two apart.
	WHO=B NAP=3 git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/b.log" 2>&1 &
	bgit=$!
	wait_until 10 grep -q "lease of bot@.* expired" "$BATS_TEST_TMPDIR/b.log"
	wait_until 10 grep -q "TASK-001: claimed by bot@" "$BATS_TEST_TMPDIR/b.log"
	sleep 2
	kill -CONT "$A"
	wait_until 30 bucket_is TASK-001 DONE
	# The resumed watcher finds out, and says so.
	wait_until 10 grep -Eq "no longer held by this watcher|lost the task" "$BATS_TEST_TMPDIR/a.log" || { cat "$BATS_TEST_TMPDIR/a.log" "$BATS_TEST_TMPDIR/b.log"; false; }
	kill -TERM "$bgit" "$agit" 2>/dev/null || true
	wait "$bgit" "$agit" 2>/dev/null || true
	A=
	[ "$(submits)" = 1 ]
	git show main:src/who.txt | grep -qx B
	# Each run names its watcher process; the landed task keeps no lease
	# field (DESIGN §25).
	[ "$(all_events | grep '"action":"run_start"' | grep -o '"holder":"bot@[^"]*"' | sort -u | wc -l)" = 2 ]
	! grep -Eq '^lease_(holder|expires): *[^ n]' "$(task_file TASK-001)" || false
}

# stopped PID: the process is stopped (SIGSTOP).
stopped() { [ "$(ps -o stat= -p "$1" | cut -c1)" = T ]; }

@test "a watcher frozen between its claim and its run's first renewal holds the task for lease_seconds only: its claim set the lease, which expires, and another watcher takes the task over and lands it" {
	lease 2 0s
	WHO=A BURL_STOP_AFTER=watch:claim git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/a.log" 2>&1 &
	agit=$!
	wait_until 10 bucket_is TASK-001 DOING
	A=$(pgrep -P "$agit" -f git-burl-watch)
	[ -n "$A" ]
	wait_until 10 stopped "$A"
	# Frozen before its run: its run_start went with the claim (one push,
	# DESIGN §25), yet no agent ran (no log), and the lease is the claim's.
	run_started TASK-001
	! [ -e "$(all_events | jq -r 'select(.task == "TASK-001" and .action == "run_start") | .details.log')" ] || false
	grep -q '^lease_expires: 20' "$(task_file TASK-001)"
	grep -q '^lease_holder: bot@' "$(task_file TASK-001)"
	sleep 2.5
	WHO=B run git burl watch --once --interval 100ms
	assert_success
	assert_output_contains "expired"
	[ "$(bucket_of TASK-001)" = DONE ]
	git show main:src/who.txt | grep -qx B
	stopped "$A"
}

@test "a lease that does not parse is taken over at once" {
	lease 900 60s
	wt=$(claim_wt TASK-001)
	f=$(task_file TASK-001)
	sed -i 's/^lease_expires:.*/lease_expires: next tuesday/' "$f"
	grep -q '^lease_expires: next tuesday' "$f" || printf '%s\n' "$(sed '2i lease_expires: next tuesday' "$f")" >"$f"
	git -C .burl commit -qam "a garbled lease"
	[ -d "$wt" ]
	run git burl doctor
	assert_output_contains "bad_lease"
	WHO=B run git burl watch --once --interval 100ms
	assert_success
	assert_output_contains "expired"
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "a lease held by a watcher of this host whose process is gone is taken over at once, not after the lease, and watch says the holder is gone (not that its lease expired)" {
	lease 900 60s
	WHO=A NAP=60 git burl watch --interval 100ms >/dev/null 2>&1 &
	agit=$!
	wait_until 10 bucket_is TASK-001 DOING
	wait_until 10 run_started TASK-001
	# Killed between transitions, not holding a lock (doctor's case).
	wait_until 10 no_locks
	w=$(pgrep -P "$agit" -f git-burl-watch || true)
	# SIGKILL: the watcher cannot release (its agent dies with it).
	kill -9 "$w" "$agit" 2>/dev/null || true
	wait "$agit" 2>/dev/null || true
	# Only this test's sleep: the machine is shared.
	kill -9 $(own_pids "^sleep 60$") 2>/dev/null || true
	[ "$(bucket_of TASK-001)" = DOING ]
	WHO=B NAP=0 run git burl watch --once --interval 100ms
	assert_success
	# Said of a dead holder: gone, not its lease expired.
	assert_output_contains "#$w is gone (process $w exited); released it (branch kept)"
	refute_output_contains "lease of"
	[ "$(bucket_of TASK-001)" = DONE ]
	git show main:src/who.txt | grep -qx B
}

@test "a watch with nothing to do but another watcher's live lease says so, once" {
	lease 900 60s
	WHO=A NAP=30 git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/a.log" 2>&1 &
	agit=$!
	wait_until 10 bucket_is TASK-001 DOING
	WHO=B timeout 3 git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/b.log" 2>&1 || true
	kill -TERM "$agit" 2>/dev/null || true
	wait "$agit" 2>/dev/null || true
	grep -Eq "TASK-001: held by bot@[^ ]+#[0-9]+ \(lease until 20[0-9-]+T[0-9:]+Z\); taken over here if that lease expires" "$BATS_TEST_TMPDIR/b.log"
	[ "$(grep -c "TASK-001: held by" "$BATS_TEST_TMPDIR/b.log")" = 1 ]
}

@test "runs are numbered across a stop and a restart: the run after a stopped one is run 2, and its retries are its own" {
	WHO=A NAP=30 git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/a.log" 2>&1 &
	agit=$!
	wait_until 10 grep -q "TASK-001: claimed by" "$BATS_TEST_TMPDIR/a.log"
	wait_until 10 test -e "$AGENTS/prompts/TASK-001-1.md"
	kill -TERM "$agit"
	wait "$agit" || true
	agit=
	bucket_is TASK-001 READY
	run env WHO=B NAP=0 git burl watch --once --interval 100ms
	assert_success
	assert_output_contains "TASK-001: run 2 of bot: submitted"
	[ -e "$AGENTS/prompts/TASK-001-2.md" ]
	bucket_is TASK-001 DONE
	[ "$(all_events | jq -r 'select(.action == "run_start") | .details.attempt' | tr '\n' ' ')" = "1 2 " ]
}

# Under bubblewrap nothing of a run outlives its watcher (its PID
# namespace dies with it: confine_hostile.bats); without a sandbox only the
# run's environment marker finds what left its process group.
@test "without a sandbox, a watcher killed with kill -9 leaves daemons; the watcher that takes its task over stops them first" {
	lease 900 60s
	agent daemonizer 'if [ "$WHO" = A ]; then setsid sleep 271.5 </dev/null >/dev/null 2>&1 & sleep 60; fi; mkdir -p src && echo "$WHO" >src/who.txt'
	SANDBOX=none one_agent daemonizer
	WHO=A git burl watch --interval 100ms >/dev/null 2>&1 &
	agit=$!
	wait_until 10 has_own_proc 'sleep 271.5'
	wait_until 10 run_started TASK-001
	wait_until 10 no_locks
	w=$(pgrep -P "$agit" -f git-burl-watch || true)
	kill -9 "$w" "$agit" 2>/dev/null || true
	wait "$agit" 2>/dev/null || true
	agit=
	# Nobody is left to end the daemon: it outlives its watcher.
	sleep 0.5
	has_own_proc 'sleep 271.5'
	run env WHO=B git burl watch --once --interval 100ms
	assert_success
	assert_output_contains "stopped"
	assert_output_contains "process(es) left by the dead watcher bot@"
	no_own_proc 'sleep 271.5'
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "agents do not inherit the descriptors of whatever started watch" {
	# What it saw goes beside its program, which no run may rewrite.
	agent fds 'mkdir -p src && ls /proc/self/fd >"'"$AGENTS"'/fds-seen" && echo x >src/who.txt'
	one_agent fds
	run git burl watch --once --interval 100ms 7>"$BATS_TEST_TMPDIR/held-open"
	assert_success
	[ -s "$AGENTS/fds-seen" ]
	! grep -qx 7 "$AGENTS/fds-seen"
}
