#!/usr/bin/env bats
# DESIGN §17 with forge: github, through the GitHub CLI: no GitHub is
# reachable here, so gh is a test double (bats/doubles/gh) that checks the
# flags burl passes and answers in gh's documented JSON. The git side is
# real: the remote's URL names github.com/acme/game and git's insteadOf
# sends the pushes to a local bare repository.

setup() {
	load helpers
	load lifecycle
	new_burl_repo
	git config --global url."file://$ORIGIN".insteadOf https://github.com/acme/game.git
	git remote set-url origin https://github.com/acme/game.git
	export GH_LOG="$BATS_TEST_TMPDIR/gh.log" GH_STATE="$BATS_TEST_TMPDIR/gh.state"
	PATH="$BATS_TEST_DIRNAME/doubles:$PATH"
	printf 'landing: pr\npr_merge: auto\npr_merge_style: squash\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -q -m "config: land through pull requests" -- .workflow/config.yaml
}

# calls VERB: how many times gh was run as `gh pr VERB`.
calls() {
	awk -v v="$1" 'prev == "pr" && $0 == v { n++ } { prev = $0 } END { print n + 0 }' "$GH_LOG"
}

@test "forge: github (detected from the remote) opens the pull request through gh, and sync settles it with one list call" {
	git burl add "Jump high" --affects src/jump.go --description "Make Jump print high." >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null

	run git burl approve TASK-001
	assert_success
	assert_output_contains "Opened pull request #7 for TASK-001: https://github.com/acme/game/pull/7"
	[ "$(field TASK-001 pr_number)" = 7 ]
	[ "$(field TASK-001 pr_head)" = "$(git ls-remote origin refs/heads/task-001-jump-high | cut -f1)" ]
	# The exact flags, the body on stdin, and no token anywhere in argv.
	grep -qx -- "--body-file" "$GH_LOG"
	grep -qx "TASK-001: Jump high" "$GH_LOG"
	grep -q "Make Jump print high." "$GH_LOG"
	grep -q -- "- scope: pass" "$GH_LOG"
	grep -qx -- "--match-head-commit" "$GH_LOG"
	grep -qx -- "--squash" "$GH_LOG"
	grep -qx -- "--auto" "$GH_LOG"
	[ "$(calls create)" = 1 ]
	[ "$(calls merge)" = 1 ]

	# Its checks run: sync says so, and status shows what sync saw.
	run env GH_CHECK_STATUS=IN_PROGRESS git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #7: open (checks: pending)"
	run git burl status
	assert_output_contains "[PR #7 open, checks pending: https://github.com/acme/game/pull/7]"
	assert_output_contains "next: git burl sync"

	# The forge merges it (here: its commits reach main by fast-forward).
	git push -q origin "$(field TASK-001 pr_head):refs/heads/main"
	jq '.state = "MERGED" | .merge = .head' "$GH_STATE" >"$GH_STATE.new" && mv "$GH_STATE.new" "$GH_STATE"
	# Approving it again opens nothing: its work is on main already.
	run git burl approve TASK-001
	assert_failure 1
	assert_output_contains "TASK-001's work is on origin/main already"
	assert_output_contains "git burl sync records it DONE"
	[ "$(calls create)" = 1 ]
	: >"$GH_LOG"
	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #7: merged as"
	[ "$(bucket_of TASK-001)" = DONE ]
	# One list of the open pull requests, then one view of the one that left it.
	[ "$(calls list)" = 1 ]
	[ "$(calls view)" -le 1 ]
}

@test "gh missing from PATH: approve says which tool and how to log in, and nothing moves" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	PATH=$(tr ':' '\n' <<<"$PATH" | grep -v "/doubles$" | paste -sd:)
	run git burl approve TASK-001
	assert_failure
	assert_output_contains "gh is not on PATH"
	assert_output_contains "gh auth login"
	[ "$(bucket_of TASK-001)" = QA ]
	# Said before anything was pushed.
	[ -z "$(git ls-remote origin refs/heads/task-001-jump-high)" ]
	[ -z "$(field TASK-001 pr_number)" ]
}

@test "a rate-limited forge: sync backs off for the time asked, says so, and asks nothing until then" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	: >"$GH_LOG"
	run env GH_RATE_LIMITED=1 git burl sync
	assert_success
	assert_output_contains "github rate-limits this account: backing off for 2m0s"
	[ "$(calls list)" = 1 ]
	run git burl sync
	assert_success
	assert_output_contains "github asked to wait (rate limit) until"
	# Nothing was asked meanwhile: the limit is not spent further.
	[ "$(calls list)" = 1 ]
	[ "$(bucket_of TASK-001)" = QA ]
	out=$(git burl sync --json 2>/dev/null)
	[ "$(jq -r '.settle.backoff_until | length > 0' <<<"$out")" = true ]
}

@test "a pull request merged at another head than approve passed is held in QA, never DONE by sync, until a human accepts what landed" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	passed=$(field TASK-001 pr_head)
	# Someone with forge credentials (an agent, say) pushes one more commit
	# to the request and merges it.
	git worktree add -q "$BATS_TEST_TMPDIR/sneak" "$passed"
	(cd "$BATS_TEST_TMPDIR/sneak" && commit_file src/evil.go "package src // not reviewed" && git push -q origin HEAD:refs/heads/main HEAD:refs/heads/task-001-jump-high)
	sneaked=$(git -C "$BATS_TEST_TMPDIR/sneak" rev-parse HEAD)
	jq --arg h "$sneaked" '.state = "MERGED" | .head = $h | .merge = $h' "$GH_STATE" >"$GH_STATE.new" && mv "$GH_STATE.new" "$GH_STATE"

	run git burl sync
	assert_success
	assert_output_contains "TASK-001: pull request #7 was merged at ${sneaked:0:10}, but approve's gates passed ${passed:0:10}"
	assert_output_contains "review them there, then git burl approve --accept-landed TASK-001 records it DONE"
	[ "$(bucket_of TASK-001)" = QA ]
	[ -z "$(all_events | jq -r 'select(.action == "pr_merged") | .task')" ]

	# Held on every later sync too.
	run git burl sync
	assert_output_contains "was merged at ${sneaked:0:10}"
	[ "$(bucket_of TASK-001)" = QA ]
	# A human looked, and accepts: the gates run on the task's commits.
	run git burl approve --accept-landed TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "watch does not hand the forge token to its agents" {
	load watch
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
	set_config max_parallel 0
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	agent sniff 'mkdir -p src; echo "token=${BURL_FORGE_TOKEN:-none}" >src/env.txt; echo "token=${BURL_FORGE_TOKEN:-none}" >'"$AGENTS/seen"
	agents_yaml "agents:
  - name: bot
    command: [\"$AGENTS/sniff\"]"
	run env BURL_FORGE_TOKEN=s3cret-forge-token git burl watch --once --interval 100ms
	assert_success
	[ "$(cat "$AGENTS/seen")" = "token=none" ]
}

@test "an open pull request pushed to outside burl goes back to READY: what the gates passed is not what it holds" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	passed=$(field TASK-001 pr_head)
	git worktree add -q "$BATS_TEST_TMPDIR/other" "$passed"
	(cd "$BATS_TEST_TMPDIR/other" && commit_file src/jump.go "package src // changed after approve" && git push -q origin HEAD:refs/heads/task-001-jump-high)
	moved=$(git -C "$BATS_TEST_TMPDIR/other" rev-parse HEAD)
	jq --arg h "$moved" '.head = $h' "$GH_STATE" >"$GH_STATE.new" && mv "$GH_STATE.new" "$GH_STATE"
	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #7: changes_requested; TASK-001 → READY: pull request #7 was pushed to outside burl (its head is ${moved:0:10}, approve passed ${passed:0:10})"
	[ "$(bucket_of TASK-001)" = READY ]
	[ "$(field TASK-001 qa_attempts)" = 1 ]
}

@test "a forge that has not caught up with approve's push yet (it lists the old head) does not send the task back" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	# The forge still lists an earlier head; the branch holds approve's.
	jq '.head = "1111111111111111111111111111111111111111"' "$GH_STATE" >"$GH_STATE.new" && mv "$GH_STATE.new" "$GH_STATE"
	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #7: open"
	[ "$(bucket_of TASK-001)" = QA ]
}

@test "a required check failing on GitHub sends the task back with the failed step's log (gh run view --log-failed); a passing one changes nothing" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	# gh's auto-merge pins the head and waits for the required checks: asked at opening.
	[ "$(calls merge)" = 1 ]
	run env GH_CHECK_STATUS=SUCCESS git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #7: open (checks: success)"
	[ "$(calls merge)" = 1 ]
	grep -qx -- "--required" "$GH_LOG"
	head=$(field TASK-001 pr_head)
	# A re-run of the check fails on the same head (the round forgets it passed).
	jq 'del(.ci_passed)' .git/burl/forge-state.json >"$BATS_TEST_TMPDIR/st" && mv "$BATS_TEST_TMPDIR/st" .git/burl/forge-state.json
	run env GH_CHECK_STATUS=FAILURE git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #7: checks_failed; TASK-001 → READY: checks failed on pull request #7 at ${head:0:10}: ci"
	[ "$(field TASK-001 ci_rounds)" = 1 ]
	run git burl show TASK-001
	assert_output_contains "- ci (https://github.com/acme/game/actions/runs/1/job/2)"
	assert_output_contains 'jump_test.go:9: Jump() = "low"'
}
