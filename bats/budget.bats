#!/usr/bin/env bats
# config max_cost_usd_per_day (DESIGN §27): once the day's runs cost that
# much, no watch claims; running work finishes, watch says so once, and
# git burl inbox lists the budget stop with the command that raises it.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

# spender: an agent whose every run reports $0.60 and does its task's work.
spender() {
	# The first two runs wait for each other: neither ends (and spends)
	# before both were claimed, however loaded the machine.
	agent spender 'touch "'"$AGENTS"'/started-$BURL_TASK"; i=0; while [ "$(ls "'"$AGENTS"'" | grep -c "^started-")" -lt 2 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
printf "{\"cost_usd\":0.6}\n" >"$BURL_USAGE_FILE"; mkdir -p "$BURL_TASK" && echo x >"$BURL_TASK/x.txt"'
	MAXP=2 one_agent spender
}

@test "max_cost_usd_per_day: the runs under way when it is reached finish and land, nothing more is claimed, watch says so once; inbox's command raises it and watches claim again" {
	watch_repo
	for n in 1 2 3 4; do
		git burl add "Task $n" --affects-glob "TASK-00$n/**" >/dev/null 2>&1
	done
	spender
	set_config max_cost_usd_per_day 0.5
	run git burl inbox
	assert_output_contains "nothing waits for you"
	# Two runs start at once ($0 spent); either one's end reaches the cap,
	# together they cost $1.20.
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(grep -c '"action":"claim"' <(all_events))" = 2 ]
	[ "$(git burl status --json | jq '.counts.DONE, .counts.READY' | paste -sd' ')" = "2 2" ]
	[ "$(grep -c "budget: today's runs" <<<"$output")" = 1 ]
	[[ "$output" =~ cost\ \$(0\.60|1\.20),\ max_cost_usd_per_day\ is\ \$0\.50:\ claiming\ nothing\ new ]]
	run git burl status --json
	[ "$(jq -c '.budget | [.limit_usd, .spent_usd, .reached, .day]' <<<"$output")" = "[0.5,1.2,true,\"$(date -u +%F)\"]" ]
	run git burl status
	assert_output_contains 'budget: today'"'"'s runs cost $1.20, max_cost_usd_per_day is $0.50'
	# A watch started now claims nothing either.
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(grep -c '"action":"claim"' <(all_events))" = 2 ]
	run git burl inbox --json
	assert_success
	[ "$(jq -r '.items[] | .kind' <<<"$output")" = budget ]
	cmd=$(jq -r '.items[0].command' <<<"$output")
	run git burl inbox
	assert_output_contains "# budget: today's runs ($(date -u +%F), UTC) cost \$1.20"
	# The command runs as printed and raises the cap (to $1.70).
	sh -c "$cmd"
	grep -qx 'max_cost_usd_per_day: 1.7' .burl/.workflow/config.yaml
	[ -z "$(git -C .burl status --porcelain)" ]
	run git burl inbox
	assert_output_contains "nothing waits for you"
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(git burl status --json | jq '.counts.DONE')" = 4 ]
}

@test "max_cost_usd_per_day: a value that is no amount is an error naming the key and what it takes" {
	new_burl_repo
	for bad in -1 '"$5"' lots; do
		set_config max_cost_usd_per_day "$bad"
		run git burl status
		assert_failure 1
		assert_output_contains "config.yaml"
		assert_output_contains "max_cost_usd_per_day: must be an amount in US dollars, 0 (no cap) or more"
	done
	set_config max_cost_usd_per_day 0
	run git burl status
	assert_success
	[ "$(git burl status --json | jq -c .budget)" = null ]
}
