#!/usr/bin/env bats
# DESIGN §19 (issue 31): a hostile agent inside the sandbox reaches
# nothing. Its git dir is a disposable one of its run's; burl takes its
# work in as receive-pack would and never runs git on anything the run
# could write; its processes live in a PID namespace of their own. Each
# agent here proves that it ran (its src/ok-<task>.txt is committed) and
# records what its attack met.

load helpers
load lifecycle
load watch

setup() {
	watch_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	MAIN=$(git rev-parse main)
	ERR="$AGENTS/attack.err"
	HOST_NS=$(readlink /proc/self/ns/pid)
	# OWN: (in an agent) $own is the task's real git dir, as the shared
	# git dir records it: .git/worktrees/<name>, whose gitdir names this
	# worktree.
	OWN='own=$(for d in '"$REPO"'/.git/worktrees/*; do [ "$(cat "$d/gitdir")" != "$PWD/.git" ] || echo "$d"; done)'
	# daemon.sh PIDFILE [BEAT]: names its PID namespace and pid, then runs
	# until killed (a line to BEAT every 0.1 s).
	cat >"$AGENTS/daemon.sh" <<'EOF'
#!/bin/sh
echo "$(readlink /proc/self/ns/pid) $$" >"$1"
while :; do [ -z "$2" ] || date >>"$2"; sleep 0.1; done
EOF
	chmod +x "$AGENTS/daemon.sh"
}

# OK: what every agent here does last, the proof that it ran.
# shellcheck disable=SC2016 # expanded by the agent
OK='mkdir -p src && echo ok >"src/ok-$BURL_TASK.txt"'

# ran ID: the marker of task ID's agent was committed (on its branch, or
# on main since).
ran() { [ -n "$(git log --all --format=%H -- "src/ok-$1.txt")" ]; }

# next_task MODE: a new task for another round, its ID in $ID.
next_task() {
	ID=$(git burl add "Feature $1" --affects-glob 'src/**' --json | jq -r .task.id)
}

# main_untouched: main is where it was, or moved only by the approve of
# work that holds no file outside src/.
main_untouched() {
	[ "$(git rev-parse main)" = "$MAIN" ] || [ -z "$(git diff --name-only "$MAIN" main -- . ':!src')" ]
}

@test "item 1: an agent that points its git dir's HEAD at main and leaves changes uncommitted lands nothing on main" {
	agent headhack 'gd=$(git rev-parse --absolute-git-dir)
{ echo "ref: refs/heads/main" >"$gd/HEAD"; } 2>>'"$ERR"'
'"$OWN"'
{ echo "ref: refs/heads/main" >"$own/HEAD"; } 2>>'"$ERR"'
echo sneaky >outside.txt; echo ran >'"$AGENTS"'/ran-$BURL_TASK'
	ID=TASK-001
	for mode in bwrap none; do
		if [ "$mode" = none ]; then next_task none; else need_bwrap; fi
		SANDBOX=$mode RETRIES=0 one_agent headhack
		run git burl watch --once --interval 100ms
		assert_failure 2
		[ -s "$AGENTS/ran-$ID" ]
		[ "$(bucket_of "$ID")" = BLOCKED ]
		# A HEAD naming anything but the task branch fails the run; what
		# it left is committed nowhere, main is where it was.
		all_events | grep '"action":"run_tampered"' | grep "\"task\":\"$ID\"" | grep -q 'HEAD changed' || { all_events | grep "$ID" >&2; false; }
		[ "$(git rev-parse main)" = "$MAIN" ]
		[ -z "$(git log --all --format=%H -- outside.txt)" ]
		[ "$(git -C "$(git burl worktree "$ID")" symbolic-ref HEAD)" = "refs/heads/$(field "$ID" branch)" ]
	done
	# Under bubblewrap the task's real git dir was out of its reach.
	grep -q 'Read-only file system' "$ERR"
}

@test "item 2: an agent that points commondir at a config with a clean filter never makes burl's git run it" {
	PWNED="$REPO/.git/hooks/pwned"
	EVIL="$AGENTS/evil"
	# The filter writes the real hooks folder: only from outside the
	# sandbox can it.
	agent commondir 'mkdir -p '"$EVIL"' && cp -r '"$REPO"'/.git/. '"$EVIL"'/ 2>/dev/null
printf "[filter \"x\"]\n\tclean = sh -c \"echo ran >>'"$PWNED"'; cat\"\n" >>'"$EVIL"'/config
mkdir -p '"$EVIL"'/info && echo "* filter=x" >'"$EVIL"'/info/attributes
gd=$(git rev-parse --absolute-git-dir)
{ echo '"$EVIL"' >"$gd/commondir"; } 2>>'"$ERR"'
'"$OWN"'
{ echo '"$EVIL"' >"$own/commondir"; } 2>>'"$ERR"'
echo left >src/left.txt; '"$OK"
	need_bwrap
	SANDBOX=bwrap one_agent commondir
	run git burl watch --once --interval 100ms
	[ ! -e "$PWNED" ]
	assert_success
	grep -q 'Read-only file system' "$ERR"
	for c in "$REPO"/.git/worktrees/*/commondir; do
		[ "$(cat "$c")" = "../.." ]
	done
	ran TASK-001
	git show main:src/left.txt | grep -qx left
	main_untouched
	# Without a sandbox the task's real git dir is writable: its commondir
	# is found after the run and put back before any git of burl's runs.
	next_task none
	SANDBOX=none RETRIES=0 one_agent commondir
	run git burl watch --once --interval 100ms
	[ ! -e "$PWNED" ]
	assert_failure 2
	[ "$(bucket_of "$ID")" = BLOCKED ]
	grep -q "blocked_reason: .*commondir changed" "$(task_file "$ID")"
	for c in "$REPO"/.git/worktrees/*/commondir; do
		[ "$(cat "$c")" = "../.." ]
	done
	main_untouched
}

@test "item 5: a run log replaced by a link to a main-worktree file: the cap never follows it" {
	seq 1 30000 >big.txt
	git add big.txt && git commit -qm "a big file" && git push -q origin main
	echo "log_max_bytes: 16384" >>.burl/.workflow/config.yaml
	git -C .burl commit -qam "small run logs"
	cp big.txt "$BATS_TEST_TMPDIR/big.txt"
	agent linker 'log=$(ls -t '"$REPO"'/.burl/.workflow/logs/$BURL_TASK/*-watch-*.log | head -n 1)
{ rm -f "$log" && ln -s '"$REPO"'/big.txt "$log"; } 2>>'"$ERR"'
seq 1 100000
'"$OK"
	ID=TASK-001
	for mode in bwrap none; do
		if [ "$mode" = none ]; then next_task none; else need_bwrap; fi
		SANDBOX=$mode one_agent linker
		run git burl watch --once --interval 100ms
		cmp big.txt "$BATS_TEST_TMPDIR/big.txt"
		assert_success
		ran "$ID"
	done
	grep -q 'Read-only file system' "$ERR"
}

@test "item 6: an agent cannot delete another task's unpushed loose commit from the shared store" {
	need_bwrap
	git switch -q -c human-work
	commit_file notes.txt "mine, not pushed" "a human's unpushed work"
	HUMAN=$(git rev-parse HEAD)
	git switch -q main
	obj="$REPO/.git/objects/${HUMAN:0:2}/${HUMAN:2}"
	[ -f "$obj" ]
	agent eraser 'rm -f '"$obj"' 2>>'"$ERR"'; '"$OK"
	SANDBOX=bwrap one_agent eraser
	run git burl watch --once --interval 100ms
	[ -f "$obj" ]
	git cat-file -e "$HUMAN"
	assert_success
	grep -q 'Read-only file system' "$ERR"
	ran TASK-001
}

@test "item 7: the run cannot read watch's environment through /proc, and its setsid daemon without BURL_RUN_ID dies with the run" {
	need_bwrap
	agent spy 'for e in /proc/[0-9]*/environ; do tr "\0" "\n" <"$e" 2>/dev/null; done | grep -c s3cret-forge >'"$AGENTS"'/leaks
setsid env -u BURL_RUN_ID '"$AGENTS"'/daemon.sh '"$AGENTS"'/daemon '"$AGENTS"'/beat </dev/null >/dev/null 2>&1 &
sleep 0.3; '"$OK"
	SANDBOX=bwrap one_agent spy
	run env BURL_FORGE_TOKEN=s3cret-forge-token git burl watch --once --interval 100ms
	assert_success
	[ "$(cat "$AGENTS/leaks")" = 0 ]
	read -r ns _ <"$AGENTS/daemon"
	[ "$ns" != "$HOST_NS" ]
	procs_gone "$AGENTS/daemon"
	n=$(wc -l <"$AGENTS/beat")
	sleep 0.5
	[ "$(wc -l <"$AGENTS/beat")" = "$n" ]
	ran TASK-001
}

# lingerer THEN: an agent that names its PID namespace, starts a daemon
# that leaves its session and drops BURL_RUN_ID, then does THEN.
lingerer() {
	agent lingerer 'echo '"$AGENT_PID"' >'"$AGENTS"'/agent
setsid env -u BURL_RUN_ID '"$AGENTS"'/daemon.sh '"$AGENTS"'/daemon </dev/null >/dev/null 2>&1 &
while [ ! -s '"$AGENTS"'/daemon ]; do sleep 0.05; done
'"$1"
}

# left_nothing: neither the agent nor its daemon is left, and they ran in
# a PID namespace of their own.
left_nothing() {
	local ns
	read -r ns _ <"$AGENTS/daemon"
	[ "$ns" != "$HOST_NS" ]
	wait_until 5 procs_gone "$AGENTS/daemon"
	procs_gone "$AGENTS/agent"
}

@test "a run's processes end with it, found by its PID namespace: a normal exit, and a timeout" {
	need_bwrap
	lingerer "$OK"
	SANDBOX=bwrap one_agent lingerer
	run git burl watch --once --interval 100ms
	assert_success
	left_nothing
	ran TASK-001
	git burl add "Hangs" >/dev/null
	rm -f "$AGENTS/daemon" "$AGENTS/agent"
	lingerer 'sleep 300'
	SANDBOX=bwrap TIMEOUT=1s RETRIES=0 one_agent lingerer
	run git burl watch --once --interval 100ms
	assert_failure 2
	assert_output_contains "timeout"
	left_nothing
}

@test "SIGTERM of watch and kill -9 of git-burl-watch leave no process of the run; the next watcher finishes the task" {
	need_bwrap
	lingerer 'if [ ! -e '"$AGENTS"'/once ]; then touch '"$AGENTS"'/once; sleep 300; fi; '"$OK"
	SANDBOX=bwrap one_agent lingerer
	git burl watch --interval 100ms >"$BATS_TEST_TMPDIR/w.log" 2>&1 &
	local pid=$!
	wait_until 20 test -s "$AGENTS/daemon"
	kill -TERM "$pid"
	wait "$pid" || true
	left_nothing
	[ "$(bucket_of TASK-001)" = READY ]
	rm -f "$AGENTS/daemon" "$AGENTS/agent" "$AGENTS/once"
	# git-burl execs the verb: $! is git-burl-watch itself.
	git-burl watch --interval 100ms >"$BATS_TEST_TMPDIR/w2.log" 2>&1 &
	pid=$!
	wait_until 20 test -s "$AGENTS/daemon"
	kill -KILL "$pid"
	wait "$pid" || true
	left_nothing
	[ "$(bucket_of TASK-001)" = DOING ]
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	ran TASK-001
	# The dead watcher's run directory was swept.
	[ -z "$(ls "$REPO/.git/burl/runs")" ]
}

@test "item 9: git burl scope run 300 processes deep inside the run only asks, sandbox or not" {
	cat >"$AGENTS/nest" <<'EOF'
#!/bin/sh
if [ "$1" -gt 0 ]; then "$0" $(($1 - 1)); exit $?; fi
git burl scope "$BURL_TASK" --affects base.go --reason "deep down" >>"$SCOPE_OUT" 2>&1
echo "exit $?" >>"$SCOPE_OUT"
EOF
	chmod +x "$AGENTS/nest"
	agent deep 'SCOPE_OUT='"$AGENTS"'/scope.out '"$AGENTS"'/nest 300
echo changed >base.go; '"$OK"
	ID=TASK-001
	for mode in bwrap none; do
		if [ "$mode" = none ]; then next_task none; else need_bwrap; fi
		rm -f "$AGENTS/scope.out"
		SANDBOX=$mode RETRIES=3 one_agent deep
		run git burl watch --once --interval 100ms
		assert_failure 2
		grep -q 'exit 1' "$AGENTS/scope.out"
		grep -q 'only asks' "$AGENTS/scope.out"
		[ "$(bucket_of "$ID")" = BLOCKED ]
		grep -q 'blocked_reason: .*waits for a human: the agent asked for wider scope (+ affects: base.go' "$(task_file "$ID")"
		all_events | grep '"action":"scope_request"' | grep -q "\"$ID\""
		! grep -q '"action":"scope"' <(all_events) || false
		! git cat-file -e main:base.go 2>/dev/null || false
		ran "$ID"
	done
}

# The directories above burl's state (the trust store's) are checked by
# identity after the run instead: confine_reach.bats.
@test "item 4: inside the sandbox neither the repository nor a directory above it can be renamed aside" {
	need_bwrap
	up=$(dirname "$REPO")
	agent mover 'mv '"$up"' '"$up"'.aside 2>>'"$ERR"'; echo "up $?" >>'"$ERR"'
mv '"$REPO"' '"$REPO"'.aside 2>>'"$ERR"'; echo "repo $?" >>'"$ERR"'
'"$OK"
	SANDBOX=bwrap one_agent mover
	run git burl watch --once --interval 100ms
	assert_success
	grep -qx 'up 1' "$ERR"
	grep -qx 'repo 1' "$ERR"
	grep -q 'Device or resource busy' "$ERR"
	[ ! -e "$up.aside" ] && [ ! -e "$REPO.aside" ]
	ran TASK-001
}

@test "without a sandbox, a watcher killed during a run leaves the worktree naming the run's git dir: doctor names it, release puts it back with the run's commits" {
	agent committer 'echo one >src/one.txt && git add src && git commit -qm "step one" && echo go >'"$AGENTS"'/ready; sleep 300'
	SANDBOX=none one_agent committer
	git-burl watch --interval 100ms >"$BATS_TEST_TMPDIR/w.log" 2>&1 &
	local pid=$!
	wait_until 20 test -s "$AGENTS/ready"
	kill -KILL "$pid"
	wait "$pid" || true
	wt="$REPO/.worktrees/task-001-feature"
	admin=$(dirname "$(grep -lx "$wt/.git" "$REPO"/.git/worktrees/*/gitdir)")
	grep -q '/.git/burl/runs/' "$wt/.git"
	run git burl doctor --json
	assert_failure 2
	jq -e '.findings[] | select(.kind == "interrupted_run" and .task == "TASK-001" and .repairable)' <<<"$output" >/dev/null
	run git burl release TASK-001
	assert_success
	[ "$(cat "$wt/.git")" = "gitdir: $admin" ]
	git -C "$wt" log -1 --format=%s | grep -qx "step one"
	[ -z "$(git -C "$wt" status --porcelain)" ]
	[ -z "$(ls "$REPO/.git/burl/runs")" ]
	run git burl doctor
	assert_success
}

@test "inside a sandboxed run git burl trust trusts nothing, and the trust store is out of reach" {
	need_bwrap
	agent truster 'git burl trust --yes >'"$AGENTS"'/trust.out 2>&1; echo "exit $?" >>'"$AGENTS"'/trust.out
{ echo junk >>'"$HOME"'/.local/state/burl/trust; } 2>>'"$ERR"'
'"$OK"
	agents_yaml "sandbox: bwrap
agents:
  - name: bot
    command: [\"$AGENTS/truster\"]"
	# A build command someone committed and this user has not trusted.
	sed -i 's|^build_command:.*|build_command: "touch '"$AGENTS"'/built2"|' .burl/.workflow/config.yaml
	git -C .burl commit -qam "another build command nobody here trusted"
	run git burl watch --once --interval 100ms
	grep -qx 'exit 1' "$AGENTS/trust.out"
	grep -q 'does not trust anything inside a watch run' "$AGENTS/trust.out"
	grep -q 'Read-only file system' "$ERR"
	run git burl trust --json
	jq -e '.commands | length == 1 and (.[0].trusted | not)' <<<"$output" >/dev/null
	[ ! -e "$AGENTS/built2" ]
	ran TASK-001
}
