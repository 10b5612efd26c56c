#!/usr/bin/env bats
# DESIGN §16, issue 23.1: a command whose text came from the workflow branch
# (build_command, agents' command and env, a task's verify) runs only once
# this machine's user trusted its exact text. The attacker is a second
# clone with push access to the workflow branch.

bats_require_minimum_version 1.5.0

load helpers
load foundation
load lifecycle
load watch
load queue

# A test that fails while an agent waits for its go must not leave watch
# running.
teardown() {
	[ -z "${AGENTS:-}" ] || touch "$AGENTS/go"
}

# mallory_pushes FILE CONTENT...: in a second clone ($MALLORY), as another
# author, set the workflow file FILE (relative to .workflow/) and push the
# workflow branch, retrying while this clone's watch pushes too.
mallory_pushes() {
	local file=$1 content=$2 i
	MALLORY=${MALLORY:-$BATS_TEST_TMPDIR/mallory}
	if [ ! -d "$MALLORY" ]; then
		clone_repo "$MALLORY"
		(cd "$MALLORY" && git burl init >/dev/null) || return 1
	fi
	for i in $(seq 1 50); do
		(cd "$MALLORY" && git burl sync --pull >/dev/null 2>&1) || true
		printf '%s\n' "$content" >"$MALLORY/.burl/.workflow/$file"
		git -C "$MALLORY/.burl" add ".workflow/$file"
		git -C "$MALLORY/.burl" -c user.name=Mallory -c user.email=mallory@evil.invalid \
			commit -q -m "tweak $file" -- ".workflow/$file" >/dev/null 2>&1 || true
		git -C "$MALLORY/.burl" push -q origin burl 2>/dev/null && return 0
		sleep 0.1
	done
	echo "mallory could not push $file" >&2
	return 1
}

# pwned_script NAME: a script that leaves $BATS_TEST_TMPDIR/pwned-NAME
# and says pwned-NAME: a gate runs it in its box, whose /tmp is private
# (DESIGN §24), and its log shows that it ran.
pwned_script() {
	printf '#!/bin/sh\necho pwned-%s\ntouch %s/pwned-%s\n' "$1" "$BATS_TEST_TMPDIR" "$1" >"$BATS_TEST_TMPDIR/$1.sh"
	chmod +x "$BATS_TEST_TMPDIR/$1.sh"
}

# pwned NAME: the script of pwned_script NAME ran, unconfined or in a
# gate box.
pwned() {
	[ -e "$BATS_TEST_TMPDIR/pwned-$1" ] || grep -rqsx "pwned-$1" "$REPO/.burl/.workflow/logs"
}

@test "init trusts the build_command it writes; a clone attaching to that workflow branch trusts nothing" {
	new_repo
	printf 'module example.com/x\n' >go.mod
	git add go.mod && git commit -q -m go.mod && git push -q origin main
	git burl init >/dev/null
	grep -qx 'build_command: go test ./...' .burl/.workflow/config.yaml
	run --separate-stderr git burl trust --json
	assert_success
	[ "$(jq -r '.total' <<<"$output")" = 1 ]
	[ "$(jq '.commands | length' <<<"$output")" = 0 ]
	[ "$(jq -r '.repository' <<<"$output")" = "$(cd .git && pwd -P)" ]
	grep -q '"where":"config.yaml:build_command","text":"go test ./..."' "$HOME/.local/state/burl/trust"
	[ "$(stat -c %a "$HOME/.local/state/burl/trust")" = 600 ]
	git burl sync --push >/dev/null

	# Another clone on the same machine (same user, same store) is another
	# repository: the build_command it finds is not its own default.
	clone_repo "$BATS_TEST_TMPDIR/b"
	cd "$BATS_TEST_TMPDIR/b"
	git burl init >/dev/null
	run --separate-stderr git burl trust --json
	assert_success
	[ "$(jq -r '.commands[0].where' <<<"$output")" = config.yaml:build_command ]
	[ "$(jq -r '.commands[0].trusted' <<<"$output")" = false ]
	[ "$(jq -r '.commands[0].previous' <<<"$output")" = null ]
}

@test "a build_command pushed from another clone is refused by validate, approve and approve --all until git burl trust" {
	new_burl_repo
	set_config build_command true
	git burl add "Feature" --affects f.txt >/dev/null
	submitted TASK-001 f.txt "work" >/dev/null
	git burl sync --push >/dev/null
	pwned_script build
	mallory_pushes config.yaml "$(sed "s|^build_command:.*|build_command: $BATS_TEST_TMPDIR/build.sh|" .burl/.workflow/config.yaml)"
	git burl sync --pull >/dev/null
	grep -q "build.sh" .burl/.workflow/config.yaml
	# A later edit of another key is not who changed build_command.
	set_config max_parallel 3

	for cmd in "validate TASK-001" "approve TASK-001" "approve --all"; do
		# shellcheck disable=SC2086 # the verb and its argument
		run git burl $cmd
		assert_failure 1
		assert_output_contains "Not trusted on this machine: build_command in config.yaml"
		assert_output_contains "by Mallory <mallory@evil.invalid>"
		assert_output_contains "  - true"
		assert_output_contains "  + $BATS_TEST_TMPDIR/build.sh"
		assert_output_contains "Fix: git burl trust"
		! pwned build || false
		[ "$(bucket_of TASK-001)" = QA ]
	done
	[ "$(git rev-list --count main)" = 1 ]
	[ -z "$(locks)" ]
	# status knows: it names the command and suggests nothing it would refuse.
	run git burl status
	assert_output_contains "not trusted on this machine (burl will not run them): config.yaml:build_command; git burl trust shows them and asks"
	refute_output_contains "git burl validate TASK-001"
	run --separate-stderr git burl status --json
	[ "$(jq -r '.untrusted | join(",")' <<<"$output")" = config.yaml:build_command ]
	[ "$(jq -r '.tasks[] | select(.id == "TASK-001") | .suggest' <<<"$output")" = "git burl trust" ]

	# Without a terminal, trust lists and refuses; --json lists only.
	run git burl trust </dev/null
	assert_failure 1
	assert_output_contains "git burl trust --yes"
	run --separate-stderr git burl trust --json
	assert_success
	[ "$(jq -r '.commands[0].changed_in.author' <<<"$output")" = "Mallory <mallory@evil.invalid>" ]
	[ "$(jq -r '.commands[0].previous' <<<"$output")" = true ]
	run git burl approve TASK-001
	assert_failure 1

	run git burl trust --yes
	assert_success
	assert_output_contains "Trusted 1 command(s); the store is $HOME/.local/state/burl/trust"
	run --separate-stderr git burl status --json
	[ "$(jq -r '.untrusted | length' <<<"$output")" = 0 ]
	run git burl approve TASK-001
	assert_success
	pwned build
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "a file in the repository or on the workflow branch claiming trust has no effect" {
	new_burl_repo
	git burl add "Feature" --affects f.txt >/dev/null
	submitted TASK-001 f.txt "work" >/dev/null
	pwned_script build
	local repo_id text line where=config.yaml:build_command
	repo_id=$(cd .git && pwd -P)
	text="$BATS_TEST_TMPDIR/build.sh"
	# A record in the store's own format, for exactly this repository, place
	# and text (sha256 of the length-prefixed triple), planted where a
	# careless implementation might look.
	line=$(printf '%s:%s\n%s:%s\n%s:%s\n' "${#repo_id}" "$repo_id" "${#where}" "$where" "${#text}" "$text" | sha256sum | cut -d' ' -f1)
	line="{\"sha256\":\"$line\",\"repo\":\"$repo_id\",\"where\":\"config.yaml:build_command\",\"text\":\"$text\"}"
	for f in .burl/.workflow/trust .burl/.workflow/.local/state/burl/trust .local/state/burl/trust; do
		mkdir -p "$(dirname "$f")"
		printf '%s\n' "$line" >"$f"
	done
	printf 'build_command: %s\ntrusted: true\nXDG_STATE_HOME: %s/.burl/.workflow\n' "$text" "$REPO" >>.burl/.workflow/config.yaml
	sed -i '0,/^build_command:/{/^build_command:/d}' .burl/.workflow/config.yaml
	git -C .burl add -A .workflow && git -C .burl commit -q -m "trust me"
	git add -A .local && git commit -q -m "trust me too"
	run git burl validate TASK-001
	assert_failure 1
	assert_output_contains "Not trusted on this machine: build_command in config.yaml"
	! pwned build || false
	# The same line in the user's own store is what trust is.
	mkdir -p "$HOME/.local/state/burl"
	printf '%s\n' "$line" >"$HOME/.local/state/burl/trust"
	run git burl validate TASK-001
	assert_success
	pwned build
}

@test "XDG_STATE_HOME moves the trust store" {
	new_burl_repo
	set_config build_command true
	export XDG_STATE_HOME="$BATS_TEST_TMPDIR/state"
	run --separate-stderr git burl trust --json
	[ "$(jq -r '.store' <<<"$output")" = "$XDG_STATE_HOME/burl/trust" ]
	[ "$(jq -r '.commands[0].where' <<<"$output")" = config.yaml:build_command ]
	git burl trust --yes >/dev/null
	[ -f "$XDG_STATE_HOME/burl/trust" ]
}

@test "add --verify is trusted as typed; a verify changed on the workflow branch is not" {
	new_burl_repo
	git burl add "Feature" --affects f.txt --verify "grep -q work f.txt" >/dev/null
	run --separate-stderr git burl trust --json
	[ "$(jq '.commands | length' <<<"$output")" = 0 ]
	submitted TASK-001 f.txt "work" >/dev/null
	run git burl validate TASK-001
	assert_success
	assert_output_contains "verify pass"
	# The same key with another text, by a hand edit committed on the
	# workflow branch, is a new text to trust.
	local f
	f=$(task_file TASK-001)
	sed -i "s|^verify:.*|verify: touch $BATS_TEST_TMPDIR/pwned-verify|" "$f"
	git -C .burl commit -q -am "verify: better"
	run git burl validate TASK-001
	assert_failure 1
	assert_output_contains "Not trusted on this machine: verify of TASK-001"
	assert_output_contains "  - grep -q work f.txt"
	assert_output_contains "  + touch $BATS_TEST_TMPDIR/pwned-verify"
	[ ! -e "$BATS_TEST_TMPDIR/pwned-verify" ]
}

@test "watch does not run a pushed agents.yaml command, says so, and never runs the older text instead" {
	watch_repo
	set_config workflow_auto_push true
	git burl add "One" --affects-glob 'src/**' >/dev/null
	git burl add "Two" --affects-glob 'src/**' >/dev/null
	# The trusted agent: records its run, waits for the go, then fails, so
	# that its retry would run the agent again.
	agent slow "echo run >>$AGENTS/runs-\$BURL_TASK; while [ ! -e $AGENTS/go ]; do sleep 0.05; done; exit 1"
	MAXP=1 RETRIES=1 one_agent slow
	git burl sync --push >/dev/null
	agent evil "touch $BATS_TEST_TMPDIR/pwned-agent"
	(cd "$REPO" && exec git-burl watch --once --interval 100ms >"$BATS_TEST_TMPDIR/w.out" 2>"$BATS_TEST_TMPDIR/w.err") &
	local pid=$!
	wait_until 20 test -s "$AGENTS/runs-TASK-001"
	mallory_pushes agents.yaml "auto_approve: true
agents:
  - name: bot
    command: [\"$AGENTS/evil\"]
    max_parallel: 1
    timeout: 30s
    retries: 1"
	wait_for_line "$BATS_TEST_TMPDIR/w.err" "agent bot: not claiming for it"
	touch "$AGENTS/go"
	wait "$pid" || true
	cat "$BATS_TEST_TMPDIR/w.err" >&2
	# Said once, with who changed it; the retry did not run the old text.
	[ "$(grep -c "agent bot: not claiming for it" "$BATS_TEST_TMPDIR/w.err")" = 1 ]
	grep -q "by Mallory <mallory@evil.invalid>" "$BATS_TEST_TMPDIR/w.err"
	grep -q "run git burl trust" "$BATS_TEST_TMPDIR/w.err"
	[ "$(wc -l <"$AGENTS/runs-TASK-001")" = 1 ]
	[ ! -e "$AGENTS/runs-TASK-002" ]
	[ ! -e "$BATS_TEST_TMPDIR/pwned-agent" ]
	[ "$(bucket_of TASK-001)" = READY ]
	[ "$(bucket_of TASK-002)" = READY ]
	grep -qi '"action":"release".*not trusted' <(all_events)

	# A new watch refuses at its start: no agent it may run.
	run git burl watch --once --interval 100ms
	assert_failure 1
	assert_output_contains "Not trusted on this machine: agents.bot.command in agents.yaml"
	assert_output_contains "Fix: git burl trust"
	[ ! -e "$BATS_TEST_TMPDIR/pwned-agent" ]
}

@test "inside a watch run nothing is trusted implicitly: an agent's add --verify and its git burl trust --yes" {
	watch_repo
	git burl add "One" --affects-glob 'src/**' >/dev/null
	agent sneaky "if [ \"\$BURL_TASK\" = TASK-001 ]; then
  git burl add 'Two' --affects-glob 'src/**' --verify 'touch $BATS_TEST_TMPDIR/pwned-verify' >$AGENTS/add.out 2>&1
  git burl trust --yes >$AGENTS/trust.out 2>&1; echo \$? >$AGENTS/trust.rc
fi
mkdir -p src && echo \"\$BURL_TASK\" >src/\$BURL_TASK.txt"
	# Unconfined, so that its burl commands run at all (under bubblewrap
	# .burl/ and the trust store are read-only to it).
	SANDBOX=none one_agent sneaky
	run git burl watch --once --interval 100ms
	cat "$AGENTS/add.out" "$AGENTS/trust.out" >&2
	grep -q "TASK-002's --verify is not trusted: it was added from inside a watch run" "$AGENTS/add.out"
	[ "$(cat "$AGENTS/trust.rc")" = 1 ]
	grep -q "git burl trust does not trust anything inside a watch run" "$AGENTS/trust.out"
	# An agent's add proposes (DESIGN §27): a human accepts it first.
	[ "$(bucket_of TASK-002)" = PROPOSED ]
	git burl accept TASK-002 >/dev/null
	run git burl watch --once --interval 100ms
	assert_output_contains "auto_approve: not running the approve queue"
	[ ! -e "$BATS_TEST_TMPDIR/pwned-verify" ]
	[ "$(bucket_of TASK-002)" = QA ]
	run git burl approve TASK-002
	assert_failure 1
	assert_output_contains "Not trusted on this machine: verify of TASK-002"
	[ ! -e "$BATS_TEST_TMPDIR/pwned-verify" ]
	# The human reads it and trusts it: now the queue runs it.
	git burl trust --yes >/dev/null
	run git burl approve --all
	assert_success
	[ -e "$BATS_TEST_TMPDIR/pwned-verify" ]
}

@test "pushed notify and worktree_setup commands do not run until trusted: the transition warns, claim refuses" {
	new_burl_repo
	git burl add "One" --affects f.txt >/dev/null
	git burl sync --push >/dev/null
	pwned_script notify
	pwned_script setup
	mallory_pushes config.yaml "$(cat .burl/.workflow/config.yaml)
notify:
  - on: [claim, block]
    command: [\"$BATS_TEST_TMPDIR/notify.sh\"]
worktree_setup:
  command: [\"$BATS_TEST_TMPDIR/setup.sh\"]"
	git burl sync --pull >/dev/null
	run git burl claim TASK-001
	assert_failure 1
	assert_output_contains "Not trusted on this machine: worktree_setup.command in config.yaml"
	assert_output_contains "by Mallory <mallory@evil.invalid>"
	[ "$(bucket_of TASK-001)" = READY ]
	[ -z "$(task_branches)" ]
	! pwned setup || false
	# A notifier never fails its transition: it is skipped, with a warning.
	run --separate-stderr git burl block TASK-001 --reason "waiting"
	assert_success
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	grep -q "notify command \"$BATS_TEST_TMPDIR/notify.sh\" not run: not trusted on this machine (git burl trust shows it and asks)" <<<"$stderr"
	[ ! -e "$BATS_TEST_TMPDIR/pwned-notify" ]
	git burl unblock TASK-001 >/dev/null 2>&1

	git burl trust --yes >/dev/null
	git burl claim TASK-001 >/dev/null
	pwned setup
	[ -e "$BATS_TEST_TMPDIR/pwned-notify" ]
}

@test "on a terminal git burl trust asks about each command: y trusts it, anything else leaves it untrusted" {
	command -v script >/dev/null || skip "script(1) is needed for a terminal"
	new_burl_repo
	git burl add "Feature" --affects f.txt >/dev/null
	printf 'build_command: "make check"\n' >>.burl/.workflow/config.yaml
	sed -i '0,/^build_command:/{/^build_command:/d}' .burl/.workflow/config.yaml
	printf 'verify: make lint\n' >tmp.fm
	sed -i "/^priority:/r tmp.fm" "$(task_file TASK-001)" && rm tmp.fm
	git -C .burl commit -q -am "commands"
	run --separate-stderr git burl trust --json
	[ "$(jq -r '[.commands[].where] | join(",")' <<<"$output")" = "config.yaml:build_command,TASK-001:verify" ]
	run script -qec "git burl trust" /dev/null < <(printf 'y\nn\n')
	assert_success
	assert_output_contains "build_command in .burl/.workflow/config.yaml, last changed in"
	assert_output_contains "verify in .burl/.workflow/READY/TASK-001-feature.md"
	assert_output_contains "Trust it? [y/N]"
	assert_output_contains "Trusted 1 of 2 command(s)"
	run --separate-stderr git burl trust --json
	[ "$(jq -r '[.commands[].where] | join(",")' <<<"$output")" = "TASK-001:verify" ]
}

@test "git burl trust --yes in six clones at once: every clone's trust is kept in the one store" {
	new_burl_repo
	git burl sync --push >/dev/null
	local i pids=()
	for i in 1 2 3 4 5 6; do
		clone_repo "$BATS_TEST_TMPDIR/c$i"
		(cd "$BATS_TEST_TMPDIR/c$i" && git burl init >/dev/null &&
			sed -i "s|^build_command:.*|build_command: echo clone-$i|" .burl/.workflow/config.yaml &&
			git -C .burl commit -q -am "build $i")
	done
	for i in 1 2 3 4 5 6; do
		(cd "$BATS_TEST_TMPDIR/c$i" && git burl trust --yes >/dev/null) &
		pids+=("$!")
	done
	for i in "${pids[@]}"; do wait "$i"; done
	[ "$(grep -c '"where":"config.yaml:build_command"' "$HOME/.local/state/burl/trust")" = 6 ]
	for i in 1 2 3 4 5 6; do
		run --separate-stderr git -C "$BATS_TEST_TMPDIR/c$i" burl trust --json
		[ "$(jq '.commands | length' <<<"$output")" = 0 ]
	done
	[ ! -e "$HOME/.local/state/burl/trust.lock" ]
}
