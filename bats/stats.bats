#!/usr/bin/env bats
# DESIGN §27: git burl stats — which agent, which model is worth its money —
# on a scripted day whose right answers the test works out itself: two
# agents, one task rejected once, one failed run with a cost, a cancelled
# task.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch
load stats

setup() {
	need bc
}

@test "stats --json on the scripted day: every figure of the total and of each agent, model and tag" {
	scripted_day
	[ "$(bucket_of TASK-001)" = DONE ] && [ "$(bucket_of TASK-003)" = DONE ]
	[ "$(field TASK-004 resolution)" = cancelled ]
	[ "$(field TASK-003 qa_attempts)" = 1 ]

	total=$(expected_row "" TASK-001 TASK-002 TASK-003 TASK-004)
	alice=$(expected_row alice TASK-001 TASK-003)
	bob=$(expected_row bob TASK-002 TASK-004)
	run git burl stats --json
	assert_success
	[ "$(jq -S -c .total <<<"$output")" = "$total" ] || { echo "got $(jq -S -c .total <<<"$output")"; echo "want $total"; false; }
	[ "$(jq -c .groups <<<"$output")" = "[]" ]

	run git burl stats --by agent --json
	assert_success
	[ "$(jq -r .by <<<"$output")" = agent ]
	[ "$(jq -S -c .total <<<"$output")" = "$total" ]
	[ "$(jq -S -c '.groups[0]' <<<"$output")" = "$alice" ] || { echo "got $(jq -S -c '.groups[0]' <<<"$output")"; echo "want $alice"; false; }
	[ "$(jq -S -c '.groups[1]' <<<"$output")" = "$bob" ]
	[ "$(jq '.groups | length' <<<"$output")" = 2 ]

	# Alice ran model m-a on tag a, Bob m-b on tag b: the same rows.
	run git burl stats --by model --json
	[ "$(jq -S -c '.groups' <<<"$output")" = "$(jq -S -c '[.[0] + {key: "m-a"}, .[1] + {key: "m-b"}]' <<<"[$alice,$bob]")" ]
	run git burl stats --by tag --json
	[ "$(jq -S -c '.groups' <<<"$output")" = "$(jq -S -c '[.[0] + {key: "a"}, .[1] + {key: "b"}]' <<<"[$alice,$bob]")" ]

	# The human table says the same.
	run git burl stats --by agent
	assert_success
	assert_output_contains "first-pass"
	[[ "$(grep '^bob ' <<<"$output")" == *'$0.50'*'$0.30'* ]]
}

@test "stats --since leaves out what happened before; a bad --by or --since is a user error" {
	scripted_day
	run git burl stats --since "$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)" --json
	assert_success
	[ "$(jq -c '[.total.landed, .total.cancelled, .total.runs, .total.spend_usd, .total.cost_per_landed_usd]' <<<"$output")" = "[0,0,0,0,null]" ]
	run git burl stats --since 1d --json
	[ "$(jq .total.landed <<<"$output")" = 3 ]
	run git burl stats --by colour
	assert_failure 1
	run git burl stats --since yesterdayish
	assert_failure 1
}

@test "stats reads another clone's history: the event log travels with the workflow branch" {
	scripted_day
	git burl sync >/dev/null 2>&1
	clone_repo "$BATS_TEST_TMPDIR/other"
	cd "$BATS_TEST_TMPDIR/other"
	git burl init >/dev/null
	run git burl stats --json
	assert_success
	[ "$(jq -c '[.total.landed, .total.cancelled, .total.spend_usd]' <<<"$output")" = "[3,1,1.3]" ]
}

@test "the HTML report shows the same table and a chart, seen in headless chromium" {
	need chromium
	scripted_day
	git burl monitor --html "$BATS_TEST_TMPDIR/report.html" >/dev/null
	run git burl stats --by agent --json
	want=$output
	prof="$BATS_TEST_TMPDIR/chrome"
	run timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 --dump-dom "file://$BATS_TEST_TMPDIR/report.html"
	assert_success
	! grep -q 'CONSOLE' <<<"$output" || false
	table=$(sed -n '/<table class="figs" id="worth-table">/,/<\/table>/p' <<<"$output")
	# Alice's row: landed, cancelled, blocked, first-pass, rounds, spend,
	# per landed, landed nothing — stats --json's figures.
	row=$(grep '<td>alice</td>' <<<"$table")
	expect=$(jq -r '.groups[] | select(.key == "alice") | "<td>alice</td><td>\(.landed)</td><td>\(.cancelled)</td><td>\(.blocked)</td><td>\(.first_pass_yield * 100 | round)%</td>"' <<<"$want")
	[[ "$row" == *"$expect"* ]] || { echo "row: $row"; echo "want: $expect"; false; }
	[[ "$row" == *"<td>1.50</td><td>0.80</td><td>0.40</td><td>0.00</td>"* ]]
	chart=$(sed -n '/<svg id="worth-chart"/,/<\/svg>/p' <<<"$output")
	[ "$(grep -c 'class="worth-bar"' <<<"$chart")" = 2 ]
	assert_output_contains 'bob · first-pass 100%'
	assert_output_contains '$0.50 per landed task'
	run timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$prof" \
		--window-size=1280,2400 --screenshot="$BATS_TEST_TMPDIR/report.png" "file://$BATS_TEST_TMPDIR/report.html"
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/report.png")" -gt 20000 ]
}
