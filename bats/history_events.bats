#!/usr/bin/env bats
# The event log is one file per day (issue 13): a transition rewrites one
# small file, not the whole history; init moves the single events.ndjson
# of earlier versions into day shards in one commit; shards of two clones
# merge without loss.

load helpers

# legacy_log N: a workflow of an earlier burl, made by hand: N tasks in
# READY and the single events.ndjson holding their add events, spread over
# the last 40 days.
legacy_log() {
	local ev=.burl/.workflow/events ts id
	find "$ev" -name '*.ndjson' -delete
	find "$ev" -mindepth 1 -type d -empty -delete
	for i in $(seq "$1"); do
		ts=$(date -u -d "@$(($(date +%s) - (i % 40) * 86400 - i))" +%Y-%m-%dT%H:%M:%SZ)
		id=$(printf 'TASK-%03d' "$i")
		printf -- '---\nid: %s\ntitle: Task %d\npriority: medium\ncreated: %s\naffects:\n  - src/t%d.go\n---\n\n## Objective\nDo %d.\n' \
			"$id" "$i" "$ts" "$i" "$i" >".burl/.workflow/READY/$id-task-$i.md"
		printf '{"ts":"%s","task":"%s","action":"add","actor":"old@machine","details":{"title":"Task %d"}}\n' "$ts" "$id" "$i"
	done >"$ev/events.ndjson"
	git -C .burl add -A .workflow
	git -C .burl commit -q -m "a workflow of an earlier burl"
}

@test "every transition writes only today's shard of the log" {
	new_burl_repo
	git burl add "Feature" >/dev/null 2>&1
	[ "$(git -C .burl show --name-only --format= HEAD | grep events/)" = "$(event_shard)" ]
	[ ! -e .burl/.workflow/events/events.ndjson ]
	grep -q '"action":"add"' ".burl/$(event_shard)"
}

@test "init moves a single events.ndjson into day shards in one commit; nothing is lost; a second init changes nothing" {
	new_burl_repo
	legacy_log 300
	before=$(git burl log --json | jq -c '[.events[] | [.ts, .task, .action]] | sort')
	[ "$(jq length <<<"$before")" -ge 300 ]
	head=$(git rev-parse burl)
	run git burl init
	assert_success
	assert_output_contains "Moved 300 event(s)"
	[ "$(git rev-list --count "$head"..burl)" = 1 ]
	[ ! -e .burl/.workflow/events/events.ndjson ]
	[ "$(find .burl/.workflow/events -name '*.ndjson' | wc -l)" -ge 40 ]
	grep -q 'events/\*\*/\*.ndjson merge=union' .burl/.workflow/.gitattributes
	after=$(git burl log --json | jq -c '[.events[] | select(.action != "init") | [.ts, .task, .action]] | sort')
	[ "$after" = "$(jq -c '[.[] | select(.[2] != "init")]' <<<"$before")" ]
	[ -z "$(git -C .burl status --porcelain)" ]
	run git burl doctor
	assert_success
	head=$(git rev-parse burl)
	run git burl init
	assert_success
	refute_output_contains "Moved"
	[ "$(git rev-parse burl)" = "$head" ]
}

@test "log --follow reads the shards; --since skips older days" {
	new_burl_repo
	legacy_log 5
	git burl init >/dev/null
	git burl add "Fresh" >/dev/null 2>&1
	run git burl log --since 1h --json
	assert_success
	[ "$(jq '[.events[] | select(.actor == "old@machine")] | length' <<<"$output")" -le 1 ]
	jq -e '.events[] | select(.action == "add" and .details.title == "Fresh")' <<<"$output" >/dev/null
	git burl log --follow >"$BATS_TEST_TMPDIR/follow" 2>&1 &
	pid=$!
	sleep 0.5
	git burl add "While following" >/dev/null 2>&1
	for _ in $(seq 40); do grep -q 'While following' "$BATS_TEST_TMPDIR/follow" && break; sleep 0.1; done
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	grep -q 'While following' "$BATS_TEST_TMPDIR/follow"
}

@test "two clones appending to the same day's shard merge by union, without loss" {
	new_burl_repo
	git push -q origin burl
	B="$BATS_TEST_TMPDIR/b"
	clone_repo "$B"
	(cd "$B" && git burl init >/dev/null)
	for i in 1 2 3; do git burl add "A$i" >/dev/null 2>&1; done
	(cd "$B" && for i in 1 2 3; do git burl add "B$i" >/dev/null 2>&1; done)
	git burl sync >/dev/null 2>&1
	run git -C "$B" burl sync
	assert_success
	run git -C "$B" burl log --json
	for t in A1 A2 A3 B1 B2 B3; do
		jq -e --arg t "$t" '.events[] | select(.action == "add" and .details.title == $t)' <<<"$output" >/dev/null
	done
	! grep -q '^[<>=]\{7\}' "$B/.burl/$(event_shard)"
}
