#!/usr/bin/env bats
# git burl watch: real agent processes (small scripts), real git, a bare
# origin. Timeouts and leases are short so the suite stays quick.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch
load queue

@test "watch --once takes a backlog to DONE with a good agent: main fast-forwarded, --json lists every run" {
	watch_repo
	for i in 1 2 3; do git burl add "Feature $i" --affects-glob "src/f$i/**" >/dev/null; done
	agent good 'n=$(echo "$BURL_TASK" | sed "s/TASK-0*//"); mkdir -p "src/f$n"; echo "feature $n" >"src/f$n/f.txt"'
	one_agent good
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_success
	json=$output
	[ "$(jq -r '.ok' <<<"$json")" = true ]
	[ "$(jq -r '.done | join(",")' <<<"$json")" = "TASK-001,TASK-002,TASK-003" ]
	[ "$(jq '.runs | length' <<<"$json")" = 3 ]
	jq -e '.runs | all(.exit == 0 and .result == "submitted" and .duration_ms >= 0 and .agent == "bot" and .attempt == 1)' <<<"$json"
	local log
	for log in $(jq -r '.runs[].log' <<<"$json"); do
		[[ $log == .burl/.workflow/logs/* ]]
		[ -f "$REPO/$log" ]
	done
	# Linear main: one commit per task, no merge commit, titles as subjects.
	[ "$(git rev-list --count --merges main)" = 0 ]
	[ "$(git rev-list --count main)" = 4 ]
	git log --format=%B main | grep -qx 'Burl-Task: TASK-002'
	for i in 1 2 3; do [ "$(bucket_of "TASK-00$i")" = DONE ]; done
	# Events carry the pinned details.
	[ "$(grep -c '"action":"run_end"' <(all_events))" = 3 ]
	grep -q '"action":"run_start".*"agent":"bot"' <(all_events)
	grep '"action":"run_end"' <(all_events) | grep -q '"result":"submitted"'
	grep '"action":"run_end"' <(all_events) | grep -q '"log":".burl/.workflow/logs/TASK-001/'
}

@test "a gate failure is retried with the violations verbatim in the next prompt, then BLOCKED with the branch kept" {
	watch_repo
	git burl add "Stubby" --affects-glob "src/**" >/dev/null
	agent stubby 'mkdir -p src; printf "package src\n\nfunc S() {} // TODO later\n" >src/s.go; echo out of scope >elsewhere.txt'
	RETRIES=1 one_agent stubby
	run git burl watch --once --interval 100ms --json
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	git rev-parse --verify -q refs/heads/task-001-stubby >/dev/null
	[ -d "$(git burl worktree TASK-001)" ]
	# Attempt 2's prompt carries attempt 1's violations as submit printed them.
	grep -q 'The previous run failed' "$AGENTS/prompts/TASK-001-2.md"
	grep -q 'elsewhere.txt' "$AGENTS/prompts/TASK-001-2.md"
	grep -q 'TODO' "$AGENTS/prompts/TASK-001-2.md"
	! grep -q 'The previous run failed' "$AGENTS/prompts/TASK-001-1.md"
	grep -q 'blocked_reason: .*2 run(s) of agent bot failed' "$(task_file TASK-001)"
	[ "$(jq -r '.blocked | join(",")' <<<"${lines[-1]}")" = TASK-001 ] || [ "$(jq -r '.blocked | join(",")' <<<"$output")" = TASK-001 ]
}

@test "a non-zero exit is retried with the exit code and the last output lines, then BLOCKED" {
	watch_repo
	git burl add "Crashy" >/dev/null
	agent crashy 'echo "line before the crash"; echo "segfault at attempt $BURL_ATTEMPT" >&2; exit 7'
	RETRIES=2 one_agent crashy
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ "$(jq '.runs | length' <<<"$output")" = 3 ]
	jq -e '.runs | all(.exit == 7 and .result == "failed")' <<<"$output"
	grep -q 'exited with code 7' "$AGENTS/prompts/TASK-001-3.md"
	grep -q 'segfault at attempt 2' "$AGENTS/prompts/TASK-001-3.md"
}

@test "an agent that changes nothing fails its run" {
	watch_repo
	git burl add "Lazy" >/dev/null
	agent lazy 'true'
	RETRIES=0 one_agent lazy
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_failure 2
	jq -e '.runs[0].result == "unchanged" and .runs[0].exit == 0' <<<"$output"
	[ "$(bucket_of TASK-001)" = BLOCKED ]
}

@test "a hung agent and all its children are killed at its timeout, then retried and BLOCKED" {
	watch_repo
	git burl add "Hangs" >/dev/null
	agent hang "sleep 300 & echo $AGENT_BG >>$AGENTS/pids; echo $AGENT_PID >>$AGENTS/pids; wait"
	TIMEOUT=1s RETRIES=1 one_agent hang
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_failure 2
	jq -e '.runs | length == 2 and all(.result == "timeout")' <<<"$output"
	[ "$(wc -l <"$AGENTS/pids")" = 4 ]
	wait_until 5 procs_gone "$AGENTS/pids"
	grep -q 'timed out after 1s' "$AGENTS/prompts/TASK-001-2.md"
	[ "$(bucket_of TASK-001)" = BLOCKED ]
}

@test "task data with \$(...), backticks, quotes and ; reaches the agent as one argv element, never through a shell" {
	watch_repo
	local title='Evil $(touch pwned1) `touch pwned2` "q" '"'s'"'; touch pwned3'
	git burl add "$title" --affects done.txt >/dev/null
	cat >"$AGENTS/argv" <<-SH
	#!/bin/sh
	printf '%s\n' "\$#" >"$AGENTS/argc"
	printf '%s\n' "\$2" >"$AGENTS/argv2"
	printf '%s\n' "\$BURL_TITLE" >"$AGENTS/envtitle"
	echo done >done.txt
	SH
	chmod +x "$AGENTS/argv"
	agents_yaml "agents:
  - name: bot
    command: [\"$AGENTS/argv\", \"--title\", \"[{title}]\", \"{id}\"]"
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(cat "$AGENTS/argc")" = 3 ]
	[ "$(cat "$AGENTS/argv2")" = "[$title]" ]
	[ "$(cat "$AGENTS/envtitle")" = "$title" ]
	[ ! -e pwned1 ] && [ ! -e pwned2 ] && [ ! -e pwned3 ]
	[ -z "$(find "$BATS_TEST_TMPDIR" -name 'pwned*')" ]
	[ "$(bucket_of TASK-001)" = QA ]
}

@test "a QA rejection reason and a DONE dependency's Implementation Notes reach the next prompt" {
	watch_repo
	git burl add "Base layer" --affects-glob "src/base/**" >/dev/null
	git burl add "On top" --affects-glob "src/top/**" --depends-on TASK-001 >/dev/null
	# TASK-001 done by hand, with delivery notes.
	local wt
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file src/base/b.txt base "base: add the base layer")
	f=$(task_file TASK-001)
	printf '\n## Implementation Notes\n\nThe base exposes b.txt; read it, never write it.\n' >>"$f"
	git -C .burl commit -q -am "notes"
	git burl submit TASK-001 >/dev/null
	git burl approve TASK-001 >/dev/null
	# TASK-002: a first run, rejected in QA by a human, then watch again.
	agent top 'mkdir -p src/top; echo "top $BURL_ATTEMPT $(date +%N)" >src/top/t.txt'
	agents_yaml "agents:
  - name: bot
    command: [\"$AGENTS/top\"]"
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-002)" = QA ]
	git burl reject TASK-002 --reason "top must say hello in t.txt" >/dev/null
	run git burl watch --once --interval 100ms
	assert_success
	local p
	# Runs are numbered on across the rejection (DESIGN §20).
	p=$(ls "$AGENTS"/prompts/TASK-002-2.md)
	grep -q 'Earlier QA rejections' "$p"
	grep -q 'top must say hello in t.txt' "$p"
	grep -q 'TASK-001: Base layer' "$p"
	grep -q 'base: add the base layer' "$p"
	grep -q 'read it, never write it' "$p"
}

@test "SIGTERM: the agents are stopped, their tasks released to READY with the branch kept, and watch exits" {
	watch_repo
	git burl add "Slow one" >/dev/null
	git burl add "Slow two" >/dev/null
	agent slow "echo $AGENT_PID >>$AGENTS/pids; sleep 300 & echo $AGENT_BG >>$AGENTS/pids; wait"
	MAXP=2 one_agent slow
	git burl watch --interval 100ms --json >"$BATS_TEST_TMPDIR/out.json" 2>"$BATS_TEST_TMPDIR/err" &
	local pid=$!
	wait_until 20 test -f "$AGENTS/pids"
	wait_until 20 sh -c "[ \$(wc -l <'$AGENTS/pids') -ge 4 ]"
	kill -TERM "$pid"
	local rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 143 ]
	wait_until 5 procs_gone "$AGENTS/pids"
	for id in TASK-001 TASK-002; do
		[ "$(bucket_of $id)" = READY ]
		grep -q 'watch stopped' "$(task_file $id)"
	done
	git rev-parse --verify -q refs/heads/task-001-slow-one >/dev/null
	jq -e '.stopped == true and .ok == false and (.runs | all(.result == "stopped"))' "$BATS_TEST_TMPDIR/out.json"
	# It says what it did with them.
	grep -q 'TASK-001: released to READY (watch stopped' "$BATS_TEST_TMPDIR/err"
	grep -q 'TASK-002: released to READY (watch stopped' "$BATS_TEST_TMPDIR/err"
}

@test "SIGKILL of watch: its agent dies; after lease_seconds a watcher in another clone takes the task over and finishes it" {
	watch_repo
	set_config workflow_auto_push true
	set_config push_main_on_approve true
	set_config push_task_branch_on_submit true
	echo "lease_seconds: 2" >>.burl/.workflow/config.yaml
	git -C .burl commit -q -am "lease_seconds: 2"
	git burl add "Resumable" --affects-glob "src/**" >/dev/null
	# The agent commits a first step, then hangs on the first attempt only
	# when in clone a; anywhere else it finishes from what is on the branch.
	agent resume '
if [ ! -f src/step1.txt ]; then mkdir -p src; echo one >src/step1.txt; git add src; git commit -qm "step 1"; git push -q origin HEAD; fi
case "$PWD" in *"/repo/"*|*"/repo") echo '"$AGENT_PID"' >'"$AGENTS"'/pid1; exec sleep 300;; esac
echo two >src/step2.txt'
	agents_yaml "auto_approve: true
agents:
  - name: bot
    command: [\"$AGENTS/resume\"]
    timeout: 60s"
	git -C .burl push -q origin burl
	# git-burl execs the verb, so $! is watch itself (git would fork it).
	git-burl watch --interval 100ms 2>"$BATS_TEST_TMPDIR/a.err" &
	local pid=$!
	wait_until 20 test -s "$AGENTS/pid1"
	kill -KILL "$pid"
	wait "$pid" || true
	wait_until 5 procs_gone "$AGENTS/pid1"
	[ "$(bucket_of TASK-001)" = DOING ]
	grep -q '^lease_expires: ' "$(task_file TASK-001)"
	clone_repo "$BATS_TEST_TMPDIR/b"
	cd "$BATS_TEST_TMPDIR/b"
	git burl init >/dev/null
	git burl trust --yes >/dev/null
	sleep 2
	run git burl watch --once --interval 200ms --json
	[ "$status" = 0 ] || { echo "$output"; cat "$BATS_TEST_TMPDIR/a.err"; false; }
	git fetch -q origin
	git log --format=%s origin/main | grep -qx 'step 1'
	git show origin/main:src/step2.txt | grep -qx two
	grep -q '"action":"lease_expired"' <(all_events)
	[ -n "$(find .burl/.workflow/DONE -name 'TASK-001-*.md')" ]
}

@test "a bad agents.yaml exits 1 naming the file, the key and the line" {
	watch_repo
	git burl add "Anything" >/dev/null
	agents_yaml 'agents:
  - name: bot
    command: "claude -p {prompt_file}"'
	run git burl watch --once
	assert_failure 1
	assert_output_contains "agents.yaml:3"
	assert_output_contains "agents.command"
	agents_yaml 'agents:
  - name: bot
    command: ["x"]
    retries: lots'
	run git burl watch --once
	assert_failure 1
	assert_output_contains "agents.yaml:4"
	assert_output_contains "agents.retries"
	agents_yaml 'agents:
  - name: bot
    command: ["x"]
    timout: 5m'
	run git burl watch --once
	assert_failure 1
	assert_output_contains "agents.yaml:4"
	assert_output_contains "agents.timout"
	[ "$(bucket_of TASK-001)" = READY ]
}

@test "three clones running watch --once through one origin finish a shared backlog: every task DONE once, origin/main linear" {
	watch_repo
	local R="$BATS_TEST_TMPDIR" n=9 i c
	for key in workflow_auto_push push_main_on_approve push_task_branch_on_submit; do
		set_config $key true
	done
	for i in $(seq 1 $n); do
		git burl add "Feature $i" --affects-glob "src/f$i/**" >/dev/null
	done
	agent good 'n=$(echo "$BURL_TASK" | sed "s/TASK-0*//"); mkdir -p "src/f$n"; echo "feature $n" >"src/f$n/f.txt"'
	MAXP=2 one_agent good
	git -C .burl push -q origin burl
	for c in b c; do
		clone_repo "$R/$c"
		(cd "$R/$c" && git burl init >/dev/null && git burl trust --yes >/dev/null)
	done
	local pids=()
	for c in repo b c; do
		(cd "$R/$c" && exec git-burl watch --once --interval 200ms --json >"$R/$c.json" 2>"$R/$c.err") &
		pids+=("$!")
	done
	local rc=0
	for i in "${!pids[@]}"; do wait "${pids[$i]}" || rc=$?; done
	[ "$rc" = 0 ] || { cat "$R"/*.err; false; }
	git fetch -q origin
	[ "$(git rev-list --count --merges origin/main)" = 0 ]
	[ "$(git rev-list --count origin/main)" = $((n + 1)) ]
	for i in $(seq 1 $n); do
		[ "$(git show "origin/main:src/f$i/f.txt")" = "feature $i" ]
	done
	# Each task approved exactly once across the clones, and DONE on origin.
	git burl sync --pull >/dev/null 2>&1 || true
	for i in $(seq -f 'TASK-%03g' 1 $n); do
		[ "$(remote_events | grep -c "\"task\":\"$i\",\"action\":\"approve\"")" = 1 ]
		git ls-tree -r --name-only origin/burl .workflow/DONE | grep -q "$i-"
	done
	[ -z "$(git ls-tree -r --name-only origin/burl .workflow/READY .workflow/DOING .workflow/QA .workflow/BLOCKED | grep TASK-)" ]
	[ "$(jq -s '[.[].runs[]] | length' "$R/repo.json" "$R/b.json" "$R/c.json")" -ge "$n" ]
}

@test "a real workload: the last 40 commits of a generated history replayed as tasks by 4 parallel agents leave main byte-identical" {
	setup_isolated_git
	local S="$BATS_TEST_TMPDIR/agents/source" i k f 
	# A small public-domain history: 45 commits over 8 files, some touching
	# two files, some creating or deleting one.
	git init -q "$S"
	for i in $(seq 1 45); do
		k=$((i % 8))
		printf 'line %d of commit %d\n' "$i" "$i" >>"$S/f$k.txt"
		[ $((i % 3)) -ne 0 ] || printf 'shared %d\n' "$i" >>"$S/f$(((k + 3) % 8)).txt"
		[ $((i % 10)) -ne 7 ] || printf 'new in %d\n' "$i" >"$S/n$i.txt"
		[ "$i" -ne 29 ] || git -C "$S" rm -q n17.txt
		git -C "$S" add -A
		git -C "$S" commit -q -m "commit $i"
	done
	ORIGIN="$BATS_TEST_TMPDIR/origin.git"
	REPO="$BATS_TEST_TMPDIR/repo"
	git init -q --bare "$ORIGIN"
	git -C "$S" push -q "$ORIGIN" "$(git -C "$S" rev-parse HEAD~40):refs/heads/main"
	git clone -q "$ORIGIN" "$REPO" 2>/dev/null
	cd "$REPO"
	git burl init >/dev/null
	set_config max_parallel 0
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
	# One task per commit, scoped to the files it touched, depending on the
	# last earlier task that touched any of them (so patches apply in order).
	declare -A last
	local n=0 c args deps
	for c in $(git -C "$S" rev-list --reverse HEAD~40..HEAD); do
		n=$((n + 1))
		echo "$c" >>"$AGENTS/map"
		args=()
		deps=()
		for f in $(git -C "$S" diff-tree --no-commit-id --name-only -r "$c"); do
			args+=(--affects "$f")
			[ -z "${last[$f]:-}" ] || deps+=(--depends-on "${last[$f]}")
			last[$f]=$(printf 'TASK-%03d' "$n")
		done
		git burl add "$(git -C "$S" log -1 --format=%s "$c")" "${args[@]}" "${deps[@]}" >/dev/null
	done
	[ "$n" = 40 ]
	agent replay 'n=$(echo "$BURL_TASK" | sed "s/TASK-0*//"); c=$(sed -n "${n}p" '"$AGENTS"'/map); git -C '"$S"' diff --binary "$c^" "$c" | git apply --index'
	agents_yaml "auto_approve: true
agents:
  - name: replay
    command: [\"$AGENTS/replay\"]
    max_parallel: 4
    timeout: 30s
    retries: 0"
	run --separate-stderr git burl watch --once --interval 100ms --json
	[ "$status" = 0 ] || { echo "$output"; echo "$stderr"; false; }
	[ "$(jq '.done | length' <<<"$output")" = 40 ] || { echo "$stderr" | grep -v approved | head -60; git burl log | grep -v "approve\|submit" | tail -30; false; }
	[ "$(git rev-parse 'main^{tree}')" = "$(git -C "$S" rev-parse 'HEAD^{tree}')" ]
	[ "$(git rev-list --count --merges main)" = 0 ]
	[ "$(git rev-list --count "$(git -C "$S" rev-parse HEAD~40)..main")" = 40 ]
}

@test "auto_approve lands QA through the merge queue: a task that breaks the batch's build goes back to READY with the bisection's reason, and the agent's next run fixes it" {
	queue_setup
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
	no_backoff
	qa 1 high
	qa 2 high BROKEN
	qa 3 high
	agent fixer 'n=$(echo "$BURL_TASK" | sed "s/TASK-0*//"); echo "fixed $n" >"f$n.txt"'
	MAXP=1 one_agent fixer
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_success
	for i in 1 2 3; do [ "$(bucket_of "TASK-00$i")" = DONE ]; done
	# The queue bisected the first batch to TASK-002 and rejected it; that
	# reason is what the agent's prompt carried.
	grep -q 'approve --all bisected the batch to it' "$AGENTS/prompts/TASK-002-1.md"
	[ "$(field TASK-002 qa_attempts)" = 1 ]
	[ ! -e "$AGENTS/prompts/TASK-001-1.md" ]
	[ "$(git show main:f2.txt)" = "fixed 2" ]
	[ "$(git rev-list --count --merges main)" = 0 ]
}

@test "the queue's rejection of a head is not applied to the head its worker submitted since: the fixed head lands" {
	queue_setup
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
	no_backoff
	# Unconfined gates (trusted), whose build of TASK-003 on TASK-001 waits until
	# TASK-002, sent back by the bisection, was run and submitted again: the
	# queue's answer then comes after the fixed head is in QA.
	cat >"$BATS_TEST_TMPDIR/build.sh" <<EOF
#!/bin/sh
if git grep -q BROKEN; then echo "build: a file says BROKEN"; exit 1; fi
if [ -e f1.txt ] && [ -e f3.txt ] && [ ! -e f2.txt ]; then
	n=0
	until ls "$REPO"/.burl/.workflow/logs/TASK-002/*-watch-bot-1.log >/dev/null 2>&1 && ls "$REPO"/.burl/.workflow/QA/TASK-002-* >/dev/null 2>&1; do
		n=\$((n + 1)); [ \$n -lt 200 ] || break; sleep 0.1
	done
fi
echo "build ok"
EOF
	printf 'sandbox: none\n' >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -qam "sandbox: none"
	git burl trust --yes >/dev/null
	qa 1 high
	qa 2 high BROKEN
	qa 3 high
	agent fixer 'n=$(echo "$BURL_TASK" | sed "s/TASK-0*//"); echo "fixed $n" >"f$n.txt"'
	MAXP=1 one_agent fixer
	run --separate-stderr git burl watch --once --interval 100ms --json
	[ "$status" = 0 ] || { echo "$stderr"; false; }
	for i in 1 2 3; do [ "$(bucket_of "TASK-00$i")" = DONE ]; done
	[ "$(git show main:f2.txt)" = "fixed 2" ]
	[ "$(field TASK-002 qa_attempts)" = 1 ]
	grep -q "TASK-002: the queue's answer (.*) is about an earlier head" <<<"$stderr"
}

@test "the prompt leaves out the template's placeholder lines and carries the description and criteria add was given" {
	watch_repo
	git burl add "Templated" --affects-glob 'a/**' >/dev/null
	git burl add "Described" --affects-glob 'b/**' --description "Make b say hello" --ac "b/hello.txt holds hello" >/dev/null
	agent quiet 'd=$(echo "$BURL_TASK" | sed "s/TASK-00//"); mkdir -p "$( [ "$d" = 1 ] && echo a || echo b)" && echo hello >"$( [ "$d" = 1 ] && echo a || echo b)/hello.txt"'
	one_agent quiet
	run git burl watch --once --interval 100ms
	assert_success
	for p in "$AGENTS"/prompts/TASK-00*-1.md; do
		! grep -q "Criterion 1\|Single sentence describing\|Worker fills" "$p" || false
	done
	grep -q "placeholder lines are left out" "$AGENTS/prompts/TASK-001-1.md"
	grep -qx "Make b say hello" "$AGENTS/prompts/TASK-002-1.md"
	grep -qx -- "- \[ \] b/hello.txt holds hello" "$AGENTS/prompts/TASK-002-1.md"
	# The queue's approves are the watcher's, not the user's who started it.
	all_events | grep '"action":"approve"' | grep -q '"actor":"watch@'
}

@test "watch says why it leaves READY work alone: no agent's tags match, or a dependency is BLOCKED" {
	watch_repo
	git burl add "Docs only" --tags docs --affects-glob 'doc/**' >/dev/null
	git burl add "Base" --affects-glob 'a/**' >/dev/null
	git burl add "On top" --depends-on TASK-002 --affects-glob 'b/**' >/dev/null
	git burl block TASK-002 --reason "waits for ops" >/dev/null
	agent coder 'true'
	agents_yaml "agents:
  - name: coder
    command: [\"$AGENTS/coder\"]
    tags: [backend]"
	run git burl watch --once --interval 100ms
	assert_success
	assert_output_contains "TASK-001: not claimed: no agent's tags match its tags [docs]"
	assert_output_contains "TASK-003: not claimed: it depends on TASK-002, which is BLOCKED and waits for a human"
}
