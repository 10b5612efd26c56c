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
    timeout: 30s
    retries: ${REVIEW_RETRIES:-1}"
}

@test "with review: configured, approve --all leaves an unreviewed task in QA; a human's approve lands it, says so and records the override" {
	queue_setup
	agent coder 'true'
	agent critic 'true'
	review_agents coder critic
	qa 1 high >/dev/null
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
	queue_setup
	agent coder 'true'
	agent critic 'true'
	review_agents coder critic
	qa 1 high >/dev/null
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
	queue_setup
	agent coder 'true'
	agent critic 'true'
	review_agents coder critic
	qa 1 high >/dev/null
	sed -i '/^review:/d' .burl/.workflow/agents.yaml
	run git burl approve --all
	assert_failure 1
	assert_output_contains "uncommitted edit of a gate input: .burl/.workflow/agents.yaml (review)"
	[ "$(bucket_of TASK-001)" = QA ]
}
