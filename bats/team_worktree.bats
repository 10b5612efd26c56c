#!/usr/bin/env bats
# worktree_setup and BURL_PORT (DESIGN §18): a task worktree an agent can
# build in, and a port of its own per DOING task.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch
load queue

# setup_config YAML: append keys to config.yaml and commit them
# (their user trusts the command: git burl trust).
setup_config() {
	printf '%s\n' "$1" >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: worktree setup" -- .workflow/config.yaml || return 1
	trust_all
}

@test "a copied .env, a linked node_modules and the setup command's output are in the worktree before the agent starts" {
	watch_repo
	printf 'SECRET=42\n' >.env
	mkdir -p node_modules/left-pad && echo 'module.exports = 1' >node_modules/left-pad/index.js
	# The usual ignore rules; "node_modules/" does not match a symlink.
	printf '.env\nnode_modules/\n' >.gitignore
	git add .gitignore && git commit -q -m ignore
	setup_config "worktree_setup:
  copy: [.env, missing.txt]
  link: [node_modules]
  command: [sh, -c, 'echo \"built for \$BURL_TASK on port \$BURL_PORT\" >setup-ran.txt']"
	git burl add "Needs env" --affects-glob "src/**" >/dev/null
	# The agent fails unless everything is there when it starts.
	agent checker 'set -e
[ "$(cat .env)" = "SECRET=42" ]
[ -L node_modules ] && [ -f node_modules/left-pad/index.js ]
grep -qx "built for $BURL_TASK on port $BURL_PORT" setup-ran.txt
rm setup-ran.txt
mkdir -p src && echo ok >src/ok.txt'
	one_agent checker
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	grep -q 'copy missing.txt: not in the main worktree, skipped' .burl/.workflow/logs/TASK-001/*-setup.log
	# Neither the secret nor the link reached main.
	[ -z "$(git ls-tree -r --name-only main -- .env node_modules)" ]
	grep -qx '/node_modules' .git/info/exclude
}

@test "a failing setup command fails the claim: the task stays READY, no worktree, the log named" {
	new_burl_repo
	setup_config "worktree_setup:
  command: [sh, -c, 'echo npm ci exploded; exit 9']"
	git burl add "One" --affects src/one.txt >/dev/null
	run git burl claim TASK-001
	assert_failure 1
	assert_output_contains 'worktree_setup: its command ["sh" "-c" "echo npm ci exploded; exit 9"] failed: exit status 9'
	assert_output_contains '-setup.log'
	[ "$(bucket_of TASK-001)" = READY ]
	[ ! -d .worktrees/task-001-one ]
	grep -q 'npm ci exploded' .burl/.workflow/logs/TASK-001/*-setup.log
}

@test "two DOING tasks get different BURL_PORTs, and a port is freed at DONE for the next task" {
	watch_repo
	set_config port_range 20100-20101
	git burl add "One" --affects-glob "src/001/**" >/dev/null
	git burl add "Two" --affects-glob "src/002/**" >/dev/null
	git burl add "Three" --affects-glob "src/003/**" >/dev/null
	# Both agents run at once (each waits for the other's port file) and
	# write down the port they were given.
	agent porty 'd=src/${BURL_TASK##*-}; mkdir -p $d
echo "$BURL_PORT" >'"$AGENTS"'/port.$BURL_TASK
[ "$BURL_TASK" = TASK-003 ] || { n=0; while [ "$(ls '"$AGENTS"'/port.TASK-00[12] 2>/dev/null | wc -l)" -lt 2 ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done; }
echo "$BURL_PORT" >$d/port.txt'
	MAXP=2 one_agent porty
	run git burl watch --once --interval 100ms
	assert_success
	p1=$(cat "$AGENTS/port.TASK-001") p2=$(cat "$AGENTS/port.TASK-002") p3=$(cat "$AGENTS/port.TASK-003")
	[ -n "$p1" ] && [ -n "$p2" ] && [ "$p1" != "$p2" ]
	# The range holds two ports: TASK-003 could only have one after the
	# first two were DONE and freed theirs.
	[[ $p3 == 2010[01] ]]
	for id in TASK-001 TASK-002 TASK-003; do
		[ "$(bucket_of $id)" = DONE ]
		[ "$(field $id port)" = null ]
	done
	grep '"action":"claim"' <(all_events) | grep -q "\"port\":$p1"
}

@test "no free port in port_range: claim says so and how to fix it" {
	new_burl_repo
	set_config port_range 20200-20200
	git burl add "One" --affects src/one.txt >/dev/null
	git burl add "Two" --affects src/two.txt >/dev/null
	git burl claim TASK-001 >/dev/null
	run git burl claim TASK-002
	assert_failure 1
	assert_output_contains 'no free TCP port in port_range 20200-20200 for TASK-002'
	assert_output_contains 'widen port_range'
	[ "$(bucket_of TASK-002)" = READY ]
	git burl release TASK-001 >/dev/null
	run git burl claim TASK-002
	assert_success
	[ "$(field TASK-002 port)" = 20200 ]
}

@test "an untrusted worktree_setup command refuses the claim before anything runs" {
	new_burl_repo
	# It marks the new worktree: it runs in its gate box, whose /tmp
	# (where the test's own folder lies) is private (DESIGN §24).
	printf 'worktree_setup:\n  command: [touch, ran]\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -q -am "config: setup"
	git burl add "One" --affects src/one.txt >/dev/null
	run git burl claim TASK-001
	assert_failure 1
	assert_output_contains 'worktree_setup.command'
	assert_output_contains 'git burl trust'
	[ -z "$(find "$REPO" -name ran)" ]
	[ "$(bucket_of TASK-001)" = READY ]
	git burl trust --yes >/dev/null
	git burl claim TASK-001 >/dev/null
	[ -e "$(git burl worktree TASK-001)/ran" ]
}

@test "worktree_setup paths stay inside the repository: a .. is refused at load with file:line, a symlink out at use; no secret reaches the agent" {
	watch_repo
	mkdir -p "$BATS_TEST_TMPDIR/outside"
	echo PRIVATE >"$BATS_TEST_TMPDIR/outside/.env"
	# A symlink committed on main that leads out of the repository.
	ln -s "$BATS_TEST_TMPDIR/outside" conf
	git add conf && git commit -q -m "conf"
	setup_config "worktree_setup:
  copy: [conf/.env]"
	git burl add "Needs env" --affects-glob "src/**" >/dev/null
	agent reader 'cat conf/.env >'"$AGENTS"'/seen 2>/dev/null; mkdir -p src && echo ok >src/ok.txt'
	one_agent reader
	run git burl watch --once --interval 100ms
	[ "$(bucket_of TASK-001)" = READY ]
	[ ! -e "$AGENTS/seen" ]
	run git burl claim TASK-001
	assert_failure 1
	assert_output_contains "worktree_setup: copy conf/.env leaves the repository"
	# A .. that would come back into the repository is refused all the same,
	# when the config is read.
	sed -i 's|copy: \[conf/.env\]|copy: [src/../README.md]|' .burl/.workflow/config.yaml
	git -C .burl commit -qam "config: dotdot"
	line=$(grep -n '^worktree_setup:' .burl/.workflow/config.yaml | cut -d: -f1)
	run git burl status
	assert_failure 1
	assert_output_contains "config.yaml:$line: worktree_setup: copy (line $((line + 1))): \"src/../README.md\" must be a path inside the repository"
}
