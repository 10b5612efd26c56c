# The scripted day of the stats tests (DESIGN §27): two agents, one of
# their tasks rejected once by a human, one failed run with a cost, a
# cancelled task. Load after helpers, lifecycle and watch.
# shellcheck shell=bash

# costly NAME MODEL: an agent script that reports MODEL and a cost read
# from $AGENTS/cost-<task>-<attempt> (0.01 when there is none), fails when
# $AGENTS/fail-<task>-<attempt> exists, and otherwise writes a file of its
# own under <task>/.
costly() {
	# shellcheck disable=SC2016 # expanded by the agent, not here
	agent "$1" 'c=$(cat '"$AGENTS"'/cost-$BURL_TASK-$BURL_ATTEMPT 2>/dev/null || echo 0.01)
printf "{\"input_tokens\":10,\"output_tokens\":5,\"cost_usd\":%s,\"model\":\"'"$2"'\"}\n" "$c" >"$BURL_USAGE_FILE"
[ ! -e '"$AGENTS"'/fail-$BURL_TASK-$BURL_ATTEMPT ] || exit 1
mkdir -p "$BURL_TASK" && echo "attempt $BURL_ATTEMPT" >"$BURL_TASK/work.txt"'
}

# scripted_day: the day. Alice (model m-a) takes tasks tagged a, Bob
# (model m-b) those tagged b:
#   TASK-001 a  lands at the first pass, cost 0.10
#   TASK-002 b  first run fails (cost 0.05), the retry lands (cost 0.20)
#   TASK-003 a  rejected once by a human (cost 0.30), lands next (0.40)
#   TASK-004 b  cancelled by a human after a run (cost 0.25) in QA
scripted_day() {
	watch_repo
	costly alice m-a
	costly bob m-b
	echo 0.10 >"$AGENTS/cost-TASK-001-1"
	echo 0.05 >"$AGENTS/cost-TASK-002-1"
	touch "$AGENTS/fail-TASK-002-1"
	echo 0.20 >"$AGENTS/cost-TASK-002-2"
	echo 0.30 >"$AGENTS/cost-TASK-003-1"
	echo 0.40 >"$AGENTS/cost-TASK-003-2"
	echo 0.25 >"$AGENTS/cost-TASK-004-1"
	git burl add "One" --tags a --affects-glob 'TASK-001/**' >/dev/null
	git burl add "Two" --tags b --affects-glob 'TASK-002/**' >/dev/null
	git burl add "Three" --tags a --affects-glob 'TASK-003/**' >/dev/null
	git burl add "Four" --tags b --affects-glob 'TASK-004/**' >/dev/null
	# One agent's watch at a time: the day's figures, not two runs' race,
	# are under test.
	day_watch alice && day_watch bob || return 1
	[ "$(bucket_of TASK-003)" = QA ] || { echo "TASK-003 is $(bucket_of TASK-003): $(field TASK-003 blocked_reason)" >&2; return 1; }
	git burl reject TASK-003 --reason "not what was asked" >/dev/null
	git burl cancel TASK-004 --reason "not needed after all" >/dev/null
	day_watch alice || return 1
	git burl approve --all >/dev/null
}

# day_watch NAME: watch --once with agents.yaml naming that agent alone.
day_watch() {
	agents_yaml "auto_approve: false
agents:
  - name: $1
    command: [\"$AGENTS/$1\"]
    tags: [${1:0:1}]
    retries: 1"
	git burl watch --once --interval 100ms >/dev/null 2>&1 || true
}

# expected_row KEY TASK...: the stats row of those tasks, worked out here
# from what the day scripted (the cost files), the task files and the
# event log's timestamps, not from burl's sums. KEY "" is the total row.
expected_row() {
	local key=$1 id f cost spend=0 nothing=0 runs=0 failed=0 landed=() cancelled=0 firstpass=0
	shift
	for id in "$@"; do
		for f in "$AGENTS"/cost-"$id"-*; do
			cost=$(cat "$f")
			runs=$((runs + 1))
			spend=$(echo "$spend + $cost" | bc)
			if [ -e "$AGENTS/fail-${f#"$AGENTS"/cost-}" ]; then
				failed=$((failed + 1))
				nothing=$(echo "$nothing + $cost" | bc)
			elif [ "$(field "$id" resolution)" = cancelled ]; then
				nothing=$(echo "$nothing + $cost" | bc)
			fi
		done
		if [ "$(field "$id" resolution)" = cancelled ]; then
			cancelled=$((cancelled + 1))
		elif [ "$(bucket_of "$id")" = DONE ]; then
			landed+=("$id")
			[ "$(field "$id" qa_attempts)" != 0 ] || firstpass=$((firstpass + 1))
		fi
	done
	all_events | jq -s -S -c --arg key "$key" --argjson ids "$(printf '%s\n' "$@" | jq -R . | jq -s -c .)" \
		--argjson landed "$(printf '%s\n' "${landed[@]}" | jq -R . | jq -s -c .)" \
		--argjson cancelled "$cancelled" --argjson firstpass "$firstpass" --argjson spend "$spend" \
		--argjson nothing "$nothing" --argjson runs "$runs" --argjson failed "$failed" '
		def r4: . * 10000 | round / 10000;
		def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		def t: .ts | fromdateiso8601;
		. as $ev | ($landed | length) as $n
		| [$landed[] as $id | ($ev | map(select(.task == $id)))
			| {claim: (map(select(.action == "claim")) | first | t), add: (map(select(.action == "add")) | first | t),
			   done: (map(select(.action == "approve")) | last | t),
			   rounds: (map(select(.action == "submit")) | length)}] as $l
		| ($ev | map(select((.task as $t | $ids | index($t)) and .actor == "tester@bats" and .action != "add")) | length) as $touches
		| {landed: $n, cancelled: $cancelled, blocked: 0, first_pass: $firstpass,
		   first_pass_yield: ($firstpass / $n | r4), rounds_per_landed: ($l | map(.rounds) | add / $n | r4),
		   runs: $runs, failed_runs: $failed, spend_usd: ($spend | r4), cost_per_landed_usd: ($spend / $n | r4),
		   spend_landed_nothing_usd: ($nothing | r4),
		   median_claim_to_landed_s: ($l | map(.done - .claim) | median | r4),
		   median_ready_to_landed_s: ($l | map(.done - .add) | median | r4),
		   human_touches: $touches, human_touches_per_landed: ($touches / $n | r4)}
		| if $key == "" then . else {key: $key} + . end'
}
