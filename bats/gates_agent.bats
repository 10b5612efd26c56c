#!/usr/bin/env bats
# DESIGN §15: an agent cannot pass its own gates. Real agent scripts under
# git burl watch try what issue 22 reproduced: widening their own scope in
# the task file, running the scope command their prompt used to hand them,
# switching the build off in config.yaml. The human's ways stay open.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch
load queue

# widener: an agent that writes affects_globs: ["**"] into its task file,
# then changes a file outside its scope.
widener() {
	agent widener 'awk "/^affects_globs:/ { print \"affects_globs: [\\\"**\\\"]\"; skip = 1; next } skip && /^  - / { next } { skip = 0; print }" "$BURL_TASK_FILE" >"$BURL_TASK_FILE.new" && mv "$BURL_TASK_FILE.new" "$BURL_TASK_FILE"
mkdir -p src && echo ok >src/ok.txt && echo sneaky >outside.txt'
}

@test "an agent that widens its own scope in \$BURL_TASK_FILE lands nothing outside it: the sandbox refuses the write" {
	watch_repo
	if ! bwrap --dev-bind / / --ro-bind / / true 2>/dev/null; then
		[ -z "${CI:-}" ] || { echo "bwrap does not work here; contrib/test-deps.sh installs it" >&2; return 1; }
		skip "bwrap does not work here (contrib/test-deps.sh, run by make test, installs bubblewrap)"
	fi
	git burl add "Small" --affects-glob "src/**" >/dev/null
	widener
	SANDBOX=bwrap RETRIES=0 one_agent widener
	run git burl watch --once --interval 100ms
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	grep -q 'Read-only file system' .burl/.workflow/logs/TASK-001/*-watch-*.log
	! git cat-file -e main:outside.txt 2>/dev/null || false
	[ "$(field TASK-001 affects_globs)" != '["**"]' ]
	! grep -q '"action":"scope"' <(all_events) || false
}

@test "without the sandbox, an agent that widens its own scope in \$BURL_TASK_FILE fails its run as run_tampered, the edit undone" {
	watch_repo
	git burl add "Small" --affects-glob "src/**" >/dev/null
	widener
	SANDBOX=none RETRIES=1 one_agent widener
	run git burl watch --once --interval 100ms
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	! git cat-file -e main:outside.txt 2>/dev/null || false
	grep -q '"action":"run_tampered"' <(all_events)
	grep -q "changed what no run may change: .burl/.workflow/DOING/TASK-001-small.md edited" "$AGENTS/prompts/TASK-001-2.md"
	grep -qx '  - src/\*\*' "$(task_file TASK-001)"
	[ -z "$(git -C .burl status --porcelain)" ]
	! grep -q '"action":"scope"' <(all_events) || false
}

@test "an agent that runs the scope command only records a request; the task waits for a human, who grants it" {
	watch_repo
	git burl add "Needs base" --affects-glob "src/**" >/dev/null
	agent asker 'git burl scope "$BURL_TASK" --affects base.go --reason "I need base.go" >'"$AGENTS"'/scope.out 2>&1; echo "exit $?" >>'"$AGENTS"'/scope.out
mkdir -p src && echo ok >src/ok.txt && echo changed >base.go'
	SANDBOX=none RETRIES=3 one_agent asker
	run git burl watch --once --interval 100ms
	assert_failure 2
	grep -q 'exit 1' "$AGENTS/scope.out"
	grep -q 'only asks' "$AGENTS/scope.out"
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	# One run: the request stops the retries, and the reason says who decides.
	[ ! -e "$AGENTS/prompts/TASK-001-2.md" ]
	grep -q 'blocked_reason: .*waits for a human: the agent asked for wider scope (+ affects: base.go' "$(task_file TASK-001)"
	[ "$(field TASK-001 affects)" = "[]" ] || [ -z "$(field TASK-001 affects)" ]
	grep -q '"action":"scope_request"' <(all_events)
	! grep -q '"action":"scope"' <(all_events) || false
	! git cat-file -e main:base.go 2>/dev/null || false
	# The prompt never offered a way around the gate.
	grep -q 'Only a human changes this scope' "$AGENTS/prompts/TASK-001-1.md"
	# status tells the human what waits for them.
	run git burl status
	assert_output_contains "for a human to grant its agent's scope request (+ affects: base.go"
	# The human grants it; the request is cleared.
	run git burl scope TASK-001 --affects base.go --reason "agreed: base.go is part of it"
	assert_success
	[ "$(field TASK-001 scope_request)" = null ]
	grep -q '"action":"scope"' <(all_events)
}

# cheater: an agent that switches the build off in config.yaml and breaks it.
cheater() {
	agent cheater 'sed -i "s/^build_command:.*/build_command: \"true\"/" '"$REPO"'/.burl/.workflow/config.yaml
mkdir -p src && echo x >src/broken'
}

@test "an agent that switches off the build in config.yaml gets nothing approved, sandbox or not" {
	watch_repo
	set_config build_command 'test ! -e src/broken'
	git burl add "Breaks the build" --affects-glob "src/**" >/dev/null
	cheater
	cp .burl/.workflow/config.yaml "$BATS_TEST_TMPDIR/config.yaml"
	for mode in auto none; do
		SANDBOX=$mode RETRIES=0 one_agent cheater
		run git burl watch --once --interval 100ms
		[ "$(bucket_of TASK-001)" = BLOCKED ]
		! git cat-file -e main:src/broken 2>/dev/null || false
		cmp .burl/.workflow/config.yaml "$BATS_TEST_TMPDIR/config.yaml"
		git burl unblock TASK-001 >/dev/null
	done
	grep -q '"action":"run_tampered"' <(all_events)
}

@test "an uncommitted edit of config.yaml's gate keys makes every gating verb exit 1 naming the file and both ways out" {
	watch_repo
	git burl add "Feature" --affects-glob "src/**" >/dev/null
	submitted TASK-001 src/feature.go 'package src' >/dev/null
	sed -i 's/^build_command:.*/build_command: "true"/' .burl/.workflow/config.yaml
	for verb in "approve --all" "approve TASK-001" "validate TASK-001"; do
		run git burl $verb
		assert_failure 1
		assert_output_contains 'uncommitted edit of a gate input: .burl/.workflow/config.yaml (build_command)'
		assert_output_contains 'checkout -- .workflow/config.yaml'
	done
}

@test "human flows: a hand edit of a READY task, scope by a human, a reviewer's committed and trusted config" {
	new_burl_repo
	git burl add "One" --affects src/one.txt >/dev/null
	f=$(task_file TASK-001)
	sed -i 's|^  - src/one.txt$|  - src/one.txt\n  - src/two.txt|' "$f"
	grep -qx '  - src/two.txt' "$f"
	git -C .burl commit -q -am "TASK-001: two.txt too"
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file src/two.txt two && commit_file src/three.txt three)
	run git burl submit TASK-001
	assert_failure 2
	assert_output_contains 'src/three.txt'
	git burl scope TASK-001 --affects src/three.txt --reason "three belongs here" >/dev/null
	run git burl submit TASK-001
	assert_success
	# A reviewer tightens the build, commits and trusts it: approve uses it.
	set_config build_command 'test -e src/four.txt'
	run git burl approve TASK-001
	assert_failure 2
	assert_output_contains 'build_command failed'
}
