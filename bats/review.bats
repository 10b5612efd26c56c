#!/usr/bin/env bats
# The reviewer as a gate (DESIGN §21, issue 33 step 4): agents.yaml's
# review: names an agent, another than the author, that reviews each task
# read-only before it lands; scripted reviewers write their verdict to
# $BURL_REVIEW_FILE.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch
load queue

setup() {
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
}

# reviewer NAME BODY: an executable /bin/sh reviewer $AGENTS/NAME; it saves
# the prompt it was given as $AGENTS/reviews/<task>-<try>.md. In BODY,
# `verdict JSON` writes the verdict to $BURL_REVIEW_FILE.
reviewer() {
	{
		printf '#!/bin/sh
'
		# shellcheck disable=SC2016 # expanded by the reviewer, not here
		printf 'mkdir -p %s/reviews && cp "$BURL_PROMPT_FILE" %s/reviews/"$BURL_TASK-$BURL_ATTEMPT.md"
' "$AGENTS" "$AGENTS"
		# shellcheck disable=SC2016
		printf 'verdict() { printf "%%s" "$1" >"$BURL_REVIEW_FILE"; }
'
		printf '%s
' "$2"
	} >"$AGENTS/$1"
	chmod +x "$AGENTS/$1"
}

# review_agents AUTHOR REVIEWER [ROUNDS]: agents.yaml with the author and
# the reviewer (scripts in $AGENTS), review: naming the reviewer.
review_agents() {
	agents_yaml "auto_approve: true
${SANDBOX:+sandbox: $SANDBOX
}review: {agent: critic, rounds: ${ROUNDS:-2}}
agents:
  - name: coder
    command: [\"$AGENTS/$1\"]
    max_parallel: 2
    timeout: 30s
    retries: ${RETRIES:-1}
  - name: critic
    command: [\"$AGENTS/$2\"]
    timeout: ${REVIEW_TIMEOUT:-30s}
    retries: ${REVIEW_RETRIES:-1}"
}

# review_queue: queue_setup with agents.yaml's review: and TASK-001 in QA.
review_queue() {
	queue_setup
	agent coder 'true'
	agent critic 'true'
	review_agents coder critic
	qa 1 high >/dev/null
}

@test "with review: configured, approve --all leaves an unreviewed task in QA; a human's approve lands it, says so and records the override" {
	review_queue
	# Every surface says what it waits for (DESIGN §20), none tells an
	# agent polling status to approve it.
	jq -e '.tasks[] | select(.id == "TASK-001") | .state == "waits_review" and (.waits | test("waits for its review by critic")) and .suggest == ""' \
		<(git burl status --json --open)
	[ "$(git burl show TASK-001 --json | jq -r .next.state)" = waits_review ]
	run git burl status
	assert_output_contains "waits for its review by critic"
	refute_output_contains "git burl validate TASK-001"
	run git burl approve --all --json
	assert_success
	jq -e '.approved == [] and .rejected == [] and .waiting[0].id == "TASK-001"' <<<"$output"
	jq -e '.waiting[0].reason | test("waits for the review by critic")' <<<"$output"
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(builds)" = 0 ]
	run git burl approve --all
	assert_output_contains "left TASK-001 in QA: it waits for the review by critic (agents.yaml review:) of its head"
	run --separate-stderr git burl approve TASK-001 --json
	assert_success
	grep -q "TASK-001 waits for the review by critic.*approving it by hand overrides the review" <<<"$stderr"
	jq -e '.review_overridden | startswith("waits for the review by critic")' <<<"$output"
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(field TASK-001 review_verdict)" = overridden ]
	grep -q '### Review overridden' "$(task_file TASK-001)"
	grep '"action":"approve"' <(all_events) | grep -q '"review_overridden":"waits for the review by critic'
	run git burl show TASK-001
	assert_output_contains "review:        overridden (approved by hand) of"
}

@test "removing review: is switching a gate off: the queue lands nothing until this user trusts it" {
	review_queue
	sed -i '/^review:/d' .burl/.workflow/agents.yaml
	git -C .burl commit -q -m "agents.yaml: no review" -- .workflow/agents.yaml
	run git burl approve --all
	assert_failure 1
	assert_output_contains "review in .burl/.workflow/agents.yaml"
	assert_output_contains "git burl trust"
	[ "$(bucket_of TASK-001)" = QA ]
	git burl trust --yes >/dev/null
	run git burl approve --all --json
	assert_success
	jq -e '.approved == ["TASK-001"]' <<<"$output"
}

@test "the review setting is a gate's input: an uncommitted edit of it fails the queue, naming agents.yaml" {
	review_queue
	sed -i '/^review:/d' .burl/.workflow/agents.yaml
	run git burl approve --all
	assert_failure 1
	assert_output_contains "uncommitted edit of a gate input: .burl/.workflow/agents.yaml (review)"
	[ "$(bucket_of TASK-001)" = QA ]
}

# A backlog of one task in src/ for watch: the author writes src/f.txt.
review_backlog() {
	watch_repo
	git burl add "Feature" --affects-glob "src/**" >/dev/null
}

@test "watch runs the reviewer on the submitted head and lands the task on its approve; the reviewer claims nothing, gets the diff, and its cost counts" {
	review_backlog
	agent coder 'mkdir -p src; echo one >src/f.txt'
	reviewer critic 'echo "file=$BURL_REVIEW_FILE cwd=$PWD" >"$AGENTS/where"
printf "{\"input_tokens\": 100, \"output_tokens\": 20, \"cost_usd\": 0.25, \"model\": \"m\"}" >"$BURL_USAGE_FILE"
verdict "{\"verdict\": \"approve\", \"summary\": \"does what it says\", \"comments\": []}"'
	review_agents coder critic
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(git show main:src/f.txt)" = one ]
	jq -e '.done == ["TASK-001"]' <<<"$output"
	jq -e '[.runs[] | {agent, result}] == [{"agent":"coder","result":"submitted"},{"agent":"critic","result":"approve"}]' <<<"$output"
	[ "$(field TASK-001 review_verdict)" = approve ]
	[[ $(field TASK-001 reviewer) == critic@* ]]
	grep '"action":"review"' <(all_events) | grep -q '"verdict":"approve"'
	# What the review cost counts on the task, as the author's runs do.
	[ "$(grep '"action":"review"' <(all_events) | jq .details.usage.cost_usd)" = 0.25 ]
	awk '/^usage:/ { u = 1 } u && /^  critic:/ { found = 1 } END { exit !found }' "$(task_file TASK-001)"
	# The reviewer never claims: only the author's runs start on a task.
	[ "$(grep -E '"action":"(claim|run_start)"' <(all_events) | grep -c critic)" = 0 ]
	# Its prompt holds the diff and where to write; it runs in a checkout
	# of its own, outside the repository, and writes its verdict there too.
	grep -q '^+one$' "$AGENTS/reviews/TASK-001-1.md"
	grep -q 'BURL_REVIEW_FILE' "$AGENTS/reviews/TASK-001-1.md"
	[[ $(cat "$AGENTS/where") != *"$REPO"* ]]
	grep -q 'TASK-001: approved by the reviewer critic: does what it says' <<<"$stderr"
	run git burl show TASK-001
	assert_output_contains "review:        approve by critic@"
}

@test "request_changes sends the task back with the comment (path:line) in the author's next prompt; its next head is reviewed again and lands" {
	review_backlog
	agent coder 'mkdir -p src; if grep -q "say two" "$BURL_PROMPT_FILE"; then echo two >src/f.txt; else echo one >src/f.txt; fi'
	reviewer critic 'if grep -q "^+two" "$BURL_PROMPT_FILE"; then verdict "{\"verdict\":\"approve\",\"summary\":\"now right\",\"comments\":[]}"; else verdict "{\"verdict\":\"request_changes\",\"summary\":\"wrong word\",\"comments\":[{\"path\":\"src/f.txt\",\"line\":1,\"body\":\"say two, not one\"}]}"; fi'
	review_agents coder critic
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(git show main:src/f.txt)" = two ]
	grep -q 'The reviewer requested changes' "$AGENTS/prompts/TASK-001-2.md"
	grep -q 'src/f.txt:1: say two, not one' "$AGENTS/prompts/TASK-001-2.md"
	grep -q 'wrong word' "$AGENTS/prompts/TASK-001-2.md"
	[ "$(grep -c 'The reviewer requested changes' "$AGENTS/prompts/TASK-001-1.md")" = 0 ]
	[ "$(grep '"action":"review"' <(all_events) | jq -r .details.verdict | paste -sd,)" = request_changes,approve ]
	[ "$(field TASK-001 review_rounds)" = 1 ]
	grep -q 'TASK-001: rejected: the reviewer critic requested changes: wrong word' <<<"$stderr"
}

@test "a reviewer changes nothing under the sandbox: its edits and commits stay in its own checkout, the task's worktree, branch and main are read-only to it" {
	need_bwrap
	review_backlog
	agent coder 'mkdir -p src; echo one >src/f.txt'
	reviewer critic "wt=\$(git -C '$REPO' burl worktree \"\$BURL_TASK\")
echo hacked >src/f.txt && git commit -qam hack && echo 'own checkout: committed' >>'$AGENTS/tried'
echo hacked >\"\$wt/src/f.txt\" 2>/dev/null || echo 'worktree: refused' >>'$AGENTS/tried'
git -C \"\$wt\" commit -q --allow-empty -m hack 2>/dev/null || echo 'branch: refused' >>'$AGENTS/tried'
git -C '$REPO' update-ref refs/heads/main HEAD 2>/dev/null || echo 'main: refused' >>'$AGENTS/tried'
verdict '{\"verdict\":\"approve\",\"summary\":\"fine\"}'"
	SANDBOX=bwrap review_agents coder critic
	run git burl watch --once --interval 100ms --json
	assert_success
	[ "$(cat "$AGENTS/tried")" = "own checkout: committed
worktree: refused
branch: refused
main: refused" ]
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(git show main:src/f.txt)" = one ]
	[ "$(git log --format=%s main | grep -c hack)" = 0 ]
}

@test "without a sandbox, a reviewer that commits on the task's branch fails its review: the branch is put back and the task never lands on it" {
	review_backlog
	agent coder 'mkdir -p src; echo one >src/f.txt'
	reviewer critic "wt=\$(git -C '$REPO' burl worktree \"\$BURL_TASK\")
git -C \"\$wt\" commit -q --allow-empty -m hack
verdict '{\"verdict\":\"approve\",\"summary\":\"fine\"}'"
	SANDBOX=none REVIEW_RETRIES=0 review_agents coder critic
	run git burl watch --once --interval 100ms --json
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ "$(git rev-parse task-001-feature)" = "$(field TASK-001 submitted_sha)" ]
	[ "$(git log --format=%s main | grep -c hack)" = 0 ]
	grep -q "blocked_reason: .*review by critic@.* failed 1 time(s); last: .*task-001-feature.*put back" "$(task_file TASK-001)"
	grep '"action":"review"' <(all_events) | grep -q '"verdict":"failed"'
}

@test "no verdict, or one that is not JSON, fails the review: it is run again, then the task is BLOCKED and never lands" {
	review_backlog
	agent coder 'mkdir -p src; echo one >src/f.txt'
	reviewer critic 'if [ "$BURL_ATTEMPT" = 2 ]; then echo "looks good to me" >"$BURL_REVIEW_FILE"; fi'
	REVIEW_RETRIES=1 review_agents coder critic
	before=$(git rev-parse main)
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_failure 2
	jq -e '.blocked == ["TASK-001"]' <<<"$output"
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ "$(git rev-parse main)" = "$before" ]
	[ "$(grep '"action":"review"' <(all_events) | jq -r .details.verdict | paste -sd,)" = failed,failed ]
	grep -q '### Review failed (try 1 of 2)' "$(task_file TASK-001)"
	grep -q 'why: the reviewer wrote no verdict file' "$(task_file TASK-001)"
	grep -q "blocked_reason: .*failed 2 time(s); last: the verdict file is not one JSON object" "$(task_file TASK-001)"
	grep -q 'TASK-001: the review failed (try 1 of 2)' <<<"$stderr"
}

@test "a reviewer that hangs is killed at its timeout: the review fails, and the task waits for a human" {
	review_backlog
	agent coder 'mkdir -p src; echo one >src/f.txt'
	reviewer critic 'sleep 47; verdict "{\"verdict\":\"approve\",\"summary\":\"late\"}"'
	REVIEW_TIMEOUT=1s REVIEW_RETRIES=0 review_agents coder critic
	SECONDS=0
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_failure 2
	[ "$SECONDS" -lt 15 ]
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	jq -e '.runs[-1] | .agent == "critic" and .result == "timeout"' <<<"$output"
	grep -q "blocked_reason: .*failed 1 time(s); last: the reviewer timed out after 1s" "$(task_file TASK-001)"
}

@test "after review.rounds requests for changes the task is BLOCKED with a one-line summary, for a human" {
	review_backlog
	agent coder 'mkdir -p src; echo "try $BURL_ATTEMPT" >src/f.txt'
	reviewer critic 'verdict "{\"verdict\":\"request_changes\",\"summary\":\"still not it\",\"comments\":[]}"'
	ROUNDS=2 review_agents coder critic
	before=$(git rev-parse main)
	run git burl watch --once --interval 100ms --json
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ "$(git rev-parse main)" = "$before" ]
	[ "$(grep -c '"action":"review"' <(all_events))" = 2 ]
	[[ $(field TASK-001 blocked_reason) == *"the reviewer critic@"*" requested changes in 2 round(s) (review.rounds 2): still not it; a human decides"* ]]
	run git burl show TASK-001
	assert_output_contains "review:        request_changes by critic@"
	assert_output_contains ", 2 round(s) of changes requested"
	# The board and the HTML report show it too.
	run git burl monitor --once
	assert_success
	grep -q 'TASK-001.*R-' <<<"$output"
	git burl monitor --html "$BATS_TEST_TMPDIR/report.html"
	grep -q 'review: request_changes by critic@' "$BATS_TEST_TMPDIR/report.html"
}

@test "the reviewer must be another agent than the author: review: naming the only agent is refused at load" {
	watch_repo
	agent coder 'true'
	agents_yaml "review: {agent: coder}
agents:
  - name: coder
    command: [\"$AGENTS/coder\"]"
	run git burl watch --once --interval 100ms
	assert_failure 1
	assert_output_contains "agents.yaml:1: review.agent"
	assert_output_contains "would review its own work"
}

@test "the README's reviewer sample is an agents.yaml watch loads: the reviewer gets its tool's read-only line" {
	watch_repo
	sed -n '/^## CI and review/,/^## What the sandbox protects/p' "$BATS_TEST_DIRNAME/../README.md" |
		awk '/^```yaml$/ { n++; inb = 1; next } /^```$/ { inb = 0; next } inb && n == 3 { print }' >"$BATS_TEST_TMPDIR/agents.yaml"
	grep -q '^review: {agent: critic' "$BATS_TEST_TMPDIR/agents.yaml"
	agents_yaml "$(cat "$BATS_TEST_TMPDIR/agents.yaml")"
	run git burl watch --print-command critic
	assert_success
	assert_output_contains "codex exec --json --sandbox read-only"
	assert_output_contains "--output-schema"
	assert_output_contains "--output-last-message"
	run git burl watch --print-command coder
	assert_success
	assert_output_contains "claude -p"
}

@test "the pull request a reviewed task opens (landing: pr) shows its review once and none of the task template's empty headings" {
	review_backlog
	# forge: github through the gh double (bats/forge_cli.bats), pushes
	# into the local bare origin.
	git config --global url."file://$ORIGIN".insteadOf https://github.com/acme/game.git
	git remote set-url origin https://github.com/acme/game.git
	export GH_LOG="$BATS_TEST_TMPDIR/gh.log" GH_STATE="$BATS_TEST_TMPDIR/gh.state"
	PATH="$BATS_TEST_DIRNAME/doubles:$PATH"
	printf 'landing: pr\npr_merge: none\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -q -m "config: land through pull requests" -- .workflow/config.yaml
	agent coder 'mkdir -p src; echo one >src/f.txt'
	reviewer critic 'verdict "{\"verdict\": \"approve\", \"summary\": \"does what it says\", \"comments\": []}"'
	review_agents coder critic
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(field TASK-001 pr_number)" = 7 ]
	# The body is what gh pr create read on stdin, logged after its argv
	# and before the next call's ("pr ...").
	body=$(awk '/^create$/ { c = 1 } c && /^--$/ { n++; next } c && n == 1 { if (/^pr$/) exit; print }' "$GH_LOG")
	[ -n "$body" ]
	[ "$(grep -c 'does what it says' <<<"$body")" = 1 ]
	# A heading with nothing under it before the next one (or the end).
	empty=$(awk '/^## / { if (h != "" && !filled) print h; h = $0; filled = 0; next } NF { filled = 1 } END { if (h != "" && !filled) print h }' <<<"$body")
	[ -z "$empty" ] || {
		echo "empty headings: $empty" >&2
		echo "$body" >&2
		false
	}
}
