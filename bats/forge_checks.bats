#!/usr/bin/env bats
# DESIGN §21 against a real Gitea on loopback: the forge's checks as a
# gate. A CI stand-in (bats/forge.bash) posts commit statuses through
# Gitea's API; main is protected with the required status check ci/test.

setup_file() {
	load forge
	forge_setup_file
}

teardown_file() {
	load forge
	forge_teardown_file
}

setup() {
	load helpers
	load lifecycle
	load forge
	new_gitea_repo
}

teardown() {
	ci_standin_stop
}

# config KEY VALUE...: set keys of config.yaml (replaced where the file
# has them, else added), commit, trust.
config() {
	local f=.burl/.workflow/config.yaml
	while [ $# -gt 0 ]; do
		if grep -q "^$1:" "$f"; then
			sed -i "s|^$1:.*|$1: $(sed_escape "$2")|" "$f"
		else
			printf '%s: %s\n' "$1" "$2" >>"$f"
		fi
		shift 2
	done
	git -C .burl commit -q -m "config: checks" -- .workflow/config.yaml
	git burl trust --yes >/dev/null
}

# settle_until BUCKET ID: sync until the task is in BUCKET (10 s at most).
settle_until() {
	local _
	for _ in $(seq 50); do
		git burl sync >>"$BATS_TEST_TMPDIR/sync.log" 2>&1 || true
		[ "$(bucket_of "$2")" = "$1" ] && return 0
		sleep 0.2
	done
	echo "$2 is in $(bucket_of "$2"), not $1; the syncs said:" >&2
	cat "$BATS_TEST_TMPDIR/sync.log" >&2
	return 1
}

@test "required checks: a pending check holds the merge; once it passed burl asks Gitea to merge the gated head, and the task lands DONE" {
	gitea_require_checks ci/test
	config pr_merge auto ci_timeout 10m
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	run git burl approve TASK-001
	assert_success
	assert_output_contains "Opened pull request #1 for TASK-001"
	assert_output_contains "its checks pass and burl asks the forge to merge it (checks: required)"
	head=$(field TASK-001 pr_head)

	# Nothing reported yet: the required check is expected, named.
	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #1: open (checks: pending); waiting for ci/test"
	ci_post "$head" pending ci/test "running" "http://ci.invalid/1"
	run git burl sync
	assert_output_contains "TASK-001 pull request #1: open (checks: pending); waiting for ci/test"
	run git burl status
	assert_output_contains "[PR #1 open, checks pending: ${GITEA_URL}$GITEA_REPO/pulls/1]"
	[ "$(pr_field 1 merged)" = false ]
	[ "$(bucket_of TASK-001)" = QA ]

	ci_post "$head" success ci/test "all tests passed" "http://ci.invalid/1"
	run git burl sync
	assert_success
	assert_output_contains "checks passed; asked gitea to merge it"
	[ "$(pr_field 1 merged)" = true ]
	settle_until DONE TASK-001
	git fetch -q origin
	git merge-base --is-ancestor "$head" origin/main
	last_event pr_merged | jq -e '.task == "TASK-001"' >/dev/null
	# The landing record (DESIGN §22) says the checks passed.
	git notes --ref=burl show "$(last_event pr_merged | jq -r .details.merged_sha)" |
		jq -e '.gates.checks.result == "pass" and (.gates.checks.inputs_sha256 | length) == 64' >/dev/null
}

@test "failed checks send the task back with each check and its log in the next prompt; the rounds end in BLOCKED" {
	load watch
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
	gitea_require_checks ci/test
	config ci_max_rounds 2 ci_log_command "[\"$(ci_log_script)\"]"
	set_config max_parallel 0
	no_backoff
	git burl add "Jump breaks-ci" --affects src/jump.go >/dev/null
	# shellcheck disable=SC2016 # expanded by the agent
	agent coder 'cat "$BURL_PROMPT_FILE" >>'"$AGENTS"'/prompts.log; echo "=====" >>'"$AGENTS"'/prompts.log
mkdir -p src; printf "package src\n\nfunc Jump() { println(%s) }\n" "$BURL_ATTEMPT$(date +%N)" >src/jump.go'
	one_agent coder
	ci_standin_start

	# Round 1: the agent's work opens a pull request; CI fails on it.
	run git burl watch --once --interval 100ms
	[ "$(bucket_of TASK-001)" = QA ]
	first=$(field TASK-001 pr_head)
	settle_until READY TASK-001
	grep -q "TASK-001 pull request #1: checks_failed; TASK-001 → READY: checks failed on pull request #1 at ${first:0:10}: ci/test" "$BATS_TEST_TMPDIR/sync.log"
	[ "$(field TASK-001 ci_rounds)" = 1 ]
	[ "$(field TASK-001 pr_number)" = null ]
	ev=$(last_event checks_failed)
	jq -e '.details.round == 1 and .details.number == 1 and .details.checks[0].name == "ci/test"' <<<"$ev" >/dev/null
	jq -e --arg u "http://ci.invalid/logs/$first" '.details.checks[0].url == $u and (.details.checks[0].log | contains("--- FAIL: TestJump"))' <<<"$ev" >/dev/null

	# Round 2: the next prompt carries the check, its description, URL and log.
	: >"$AGENTS/prompts.log"
	run git burl watch --once --interval 100ms
	grep -q "## The forge's checks failed on your last submission" "$AGENTS/prompts.log"
	grep -q -- "- ci/test: 1 test failed (http://ci.invalid/logs/$first)" "$AGENTS/prompts.log"
	grep -q -- "--- FAIL: TestJump (0.00s)" "$AGENTS/prompts.log"
	grep -q "jump_test.go:9: Jump breaks-ci" "$AGENTS/prompts.log"
	# (watch settles too: the task may be back already.)
	settle_until BLOCKED TASK-001
	[ "$(field TASK-001 ci_rounds)" = 2 ]
	# The same pull request, updated with the second round's work.
	[ "$(all_events | jq -r 'select(.action == "pr_open") | .details.number' | sort -u)" = 1 ]
	second=$(all_events | jq -r 'select(.action == "pr_open") | .details.head' | tail -1)
	[ "$second" != "$first" ]
	field TASK-001 blocked_reason | grep -qF "checks failed in 2 round(s) (ci_max_rounds 2): ci/test; a human decides"
	# Nothing merged.
	[ "$(pr_field 1 merged)" = false ]
	git fetch -q origin
	run git merge-base --is-ancestor "$second" origin/main
	assert_failure
}

@test "a check that never reports fails at ci_timeout, named" {
	gitea_require_checks ci/test ci/lint
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	head=$(field TASK-001 pr_head)
	ci_post "$head" success ci/test "all tests passed"
	run git burl sync
	assert_output_contains "TASK-001 pull request #1: open (checks: pending); waiting for ci/lint"
	[ "$(bucket_of TASK-001)" = QA ]
	# ci/lint never reports; the wait is cut short here.
	config ci_timeout 4s
	settle_until READY TASK-001
	grep -qF "TASK-001 → READY: checks timed out on pull request #1 at ${head:0:10} after ci_timeout (4s): ci/lint" "$BATS_TEST_TMPDIR/sync.log"
	last_event checks_failed | jq -e '.details.checks[0].name == "ci/lint" and (.details.checks[0].description | contains("did not pass within ci_timeout (4s): required by main"))' >/dev/null
	run git burl show TASK-001
	assert_output_contains "ci/lint: did not pass within ci_timeout (4s)"
}

@test "checks: all waits for every check reported, and for a first one" {
	config checks all
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	head=$(field TASK-001 pr_head)
	run git burl sync
	assert_output_contains "open (checks: pending); waiting for any check"
	ci_post "$head" success ci/test "ok"
	ci_post "$head" pending coverage "measuring"
	run git burl sync
	assert_output_contains "open (checks: pending); waiting for coverage"
	ci_post "$head" failure coverage "coverage fell to 41%" "http://ci.invalid/cov"
	run git burl sync
	assert_output_contains "TASK-001 → READY: checks failed on pull request #1 at ${head:0:10}: coverage"
	run git burl show TASK-001
	assert_output_contains "- coverage: coverage fell to 41% (http://ci.invalid/cov)"
}

@test "queue_ci: forge: approve --all waits for the checks of each candidate on burl/queue/<n>, bisects a red batch, lands the green tasks and removes the candidate branches" {
	config landing local queue_ci forge checks all ci_log_command "[\"$(ci_log_script)\"]"
	set_config build_command ""
	set_config push_main_on_approve true
	for n in 1 2 3 4; do
		title="Part $n"
		[ "$n" = 3 ] && title="Part 3 breaks-ci"
		git burl add "$title" --affects "src/part$n.go" >/dev/null
		id=$(printf 'TASK-%03d' "$n")
		wt=$(claim_wt "$id")
		(cd "$wt" && commit_file "src/part$n.go" "package src // part $n" "$title" && git burl submit >/dev/null)
	done
	ci_standin_start
	run git burl approve --all
	[ "$status" -ne 0 ]
	assert_output_contains "approved TASK-001"
	assert_output_contains "approved TASK-002"
	assert_output_contains "approved TASK-004"
	for id in TASK-001 TASK-002 TASK-004; do [ "$(bucket_of "$id")" = DONE ]; done
	[ "$(bucket_of TASK-003)" = READY ]
	ev=$(all_events | jq -c 'select(.task == "TASK-003" and .action == "checks_failed")' | tail -1)
	jq -e '.details.cause == "queue"' <<<"$ev" >/dev/null
	run git burl show TASK-003
	assert_output_contains "the forge's checks failed on burl/queue/"
	assert_output_contains "jump_test.go:9: Part 3 breaks-ci"
	# The batch of four was red, its prefixes judged: more than one candidate.
	[ "$(wc -l <"$BATS_TEST_TMPDIR/ci-judged")" -ge 3 ]
	grep -q failure "$BATS_TEST_TMPDIR/ci-judged"
	# Main moved only to green candidates: TASK-003's commit is not on it.
	git fetch -q origin
	run git log --format=%s origin/main
	refute_output_contains breaks-ci
	git log --format=%s origin/main | grep -qx "Part 4"
	# Part 4's landing record names the checks that passed on its candidate.
	git notes --ref=burl show origin/main | jq -e '.task == "TASK-004" and .gates.checks.result == "pass" and (.gates.checks.summary | contains("ci/test")) and .gates.build.result == "none"' >/dev/null
	# No candidate branch is left on the remote.
	[ -z "$(git ls-remote origin 'refs/heads/burl/queue/*')" ]
}

@test "queue_ci: forge: a single approve waits for the checks on burl/queue/<n> as approve --all does: red checks send the task back to READY with main unmoved, green ones land it" {
	config landing local queue_ci forge checks all ci_log_command "[\"$(ci_log_script)\"]"
	set_config build_command ""
	set_config push_main_on_approve true
	for n in 1 2; do
		title="Part $n"
		[ "$n" = 2 ] && title="Part 2 breaks-ci"
		git burl add "$title" --affects "src/part$n.go" >/dev/null
		id=$(printf 'TASK-%03d' "$n")
		wt=$(claim_wt "$id")
		(cd "$wt" && commit_file "src/part$n.go" "package src // part $n" "$title" && git burl submit >/dev/null)
	done
	main_before=$(git rev-parse main)
	ci_standin_start
	run git burl approve TASK-002
	[ "$status" -eq 2 ]
	assert_output_contains "the forge's checks failed on burl/queue/2"
	assert_output_contains "ci/test"
	[ "$(bucket_of TASK-002)" = READY ]
	[ "$(git rev-parse main)" = "$main_before" ]
	git fetch -q origin
	[ "$(git rev-parse origin/main)" = "$main_before" ]
	grep -q failure "$BATS_TEST_TMPDIR/ci-judged"
	ev=$(all_events | jq -c 'select(.task == "TASK-002" and .action == "checks_failed")' | tail -1)
	jq -e '.details.cause == "queue" and .details.round == 1' <<<"$ev" >/dev/null
	run git burl show TASK-002
	assert_output_contains "jump_test.go:9: Part 2 breaks-ci"
	run git burl approve TASK-001
	[ "$status" -eq 0 ]
	[ "$(bucket_of TASK-001)" = DONE ]
	grep -q success "$BATS_TEST_TMPDIR/ci-judged"
	git fetch -q origin
	git log --format=%s origin/main | grep -qx "Part 1"
	git notes --ref=burl show origin/main | jq -e '.task == "TASK-001" and .gates.checks.result == "pass"' >/dev/null
	[ -z "$(git ls-remote origin 'refs/heads/burl/queue/*')" ]
}
