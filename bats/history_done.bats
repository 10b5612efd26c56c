#!/usr/bin/env bats
# DONE is one folder per month (issue 13): an approve writes
# DONE/YYYY-MM/TASK-….md and rewrites that month's tree only; every reader
# finds tasks there and in the flat DONE/ of earlier versions; init moves a
# flat DONE/ into month shards in one commit.

load helpers
load lifecycle

# flat_done N: a workflow of an earlier burl, made by hand: N tasks in a
# flat DONE/, completed over the last 90 days, one of them without
# completed_at, and one malformed file.
flat_done() {
	local wf=.burl/.workflow ts id
	for i in $(seq "$1"); do
		ts=$(date -u -d "@$(($(date +%s) - (i % 90) * 86400 - i))" +%Y-%m-%dT%H:%M:%SZ)
		id=$(printf 'TASK-%03d' "$i")
		printf -- '---\nid: %s\ntitle: Task %d\npriority: medium\ncreated: %s\ncompleted_at: %s\naffects:\n  - src/t%d.go\n---\n\n## Objective\nDo %d.\n' \
			"$id" "$i" "$ts" "$ts" "$i" "$i" >"$wf/DONE/$id-task-$i.md"
	done
	sed -i '/^completed_at:/d' "$wf/DONE/TASK-001-task-1.md"
	printf -- '---\nid: [not, a, task\n---\n' >"$wf/DONE/TASK-999-broken.md"
	git -C .burl add -A .workflow
	git -C .burl commit -q -m "a workflow of an earlier burl"
}

@test "approve moves a task into this month's DONE shard; the commit touches that shard only; every reader finds it there" {
	new_burl_repo
	git burl add "Feature" --affects src/f.txt >/dev/null 2>&1
	wt=$(submitted TASK-001 src/f.txt "feature")
	run git burl approve TASK-001
	assert_success
	month=$(date -u +%Y-%m)
	f=$(ls .burl/.workflow/DONE/"$month"/TASK-001-*.md)
	[ -f "$f" ]
	[ "$(bucket_of TASK-001)" = DONE ]
	# The approve commit: the task's move and today's event shard, nothing else.
	run git -C .burl show --no-renames --name-only --format= HEAD
	assert_success
	[ "$(grep -c . <<<"$output")" = 3 ]
	grep -qx ".workflow/DONE/$month/TASK-001-feature.md" <<<"$output"
	grep -qx ".workflow/QA/TASK-001-feature.md" <<<"$output"
	run git burl show TASK-001 --json
	assert_success
	[ "$(jq -r .task.bucket <<<"$output")" = DONE ]
	[ "$(jq -r .task.path <<<"$output")" = ".burl/.workflow/DONE/$month/TASK-001-feature.md" ]
	run git burl status
	assert_output_contains "DONE 1"
	[ "$(git burl status --json | jq -r '.tasks[] | select(.id == "TASK-001") | .bucket')" = DONE ]
	run git burl doctor
	assert_success
	# A task depending on it can be claimed.
	git burl add "After" --depends-on TASK-001 --affects src/g.txt >/dev/null 2>&1
	run git burl claim TASK-002
	assert_success
	[ -z "$(git -C .burl status --porcelain)" ]
}

@test "init moves a flat DONE into month shards by completed_at in one commit; nothing is lost; a second init changes nothing" {
	new_burl_repo
	flat_done 200
	before=$(git burl status --json | jq -c '[.tasks[] | .id] | sort')
	[ "$(jq length <<<"$before")" = 200 ]
	head=$(git rev-parse burl)
	run git burl init
	assert_success
	assert_output_contains "Moved 200 DONE task(s)"
	[ "$(git rev-list --count "$head"..burl)" = 1 ]
	[ -z "$(git -C .burl status --porcelain)" ]
	# Every task is in the shard of its completed_at; the one without (which
	# doctor reports: DONE requires it) is in this month's; the malformed
	# file stayed where it was.
	ts=$(sed -n 's/^completed_at: //p' .burl/.workflow/DONE/*/TASK-050-*.md)
	[ -f ".burl/.workflow/DONE/${ts:0:7}/TASK-050-task-50.md" ]
	[ -f ".burl/.workflow/DONE/$(date -u +%Y-%m)/TASK-001-task-1.md" ]
	[ -f .burl/.workflow/DONE/TASK-999-broken.md ]
	[ "$(find .burl/.workflow/DONE -mindepth 1 -maxdepth 1 -type d | wc -l)" -ge 3 ]
	[ "$(git burl status --json | jq -c '[.tasks[] | .id] | sort')" = "$before" ]
	# Without --json status counts DONE by file name (the malformed one too)
	# rather than read a history's worth of files; doctor names that one.
	run git burl status
	assert_output_contains "DONE 201"
	run git burl show TASK-123
	assert_success
	run git burl doctor --json
	[ "$(jq -c '[.findings[] | select(.kind != "malformed_task" and .task != "TASK-001")]' <<<"$output")" = '[]' ]
	head=$(git rev-parse burl)
	run git burl init
	assert_success
	refute_output_contains "DONE task(s)"
	[ "$(git rev-parse burl)" = "$head" ]
	# The next ID is above every file name's, the malformed TASK-999's too.
	run git burl add "New work"
	assert_success
	assert_output_contains "TASK-1000"
}

@test "add numbers past the highest ID in any DONE shard; a task in READY and a copy in a DONE shard is a duplicate" {
	new_burl_repo
	mkdir -p .burl/.workflow/DONE/2025-01
	for i in 1 2 3; do
		printf -- '---\nid: TASK-04%d\ntitle: Old %d\npriority: low\ncreated: 2025-01-0%dT10:00:00Z\ncompleted_at: 2025-01-0%dT12:00:00Z\n---\n' \
			"$i" "$i" "$i" "$i" >".burl/.workflow/DONE/2025-01/TASK-04$i-old-$i.md"
	done
	git -C .burl add -A .workflow && git -C .burl commit -q -m "old history"
	run git burl add "Next"
	assert_success
	assert_output_contains "TASK-044"
	cp .burl/.workflow/READY/TASK-044-next.md .burl/.workflow/DONE/2025-01/
	git -C .burl add -A .workflow && git -C .burl commit -q -m "a bad merge"
	run git burl claim TASK-044
	assert_failure 1
	assert_output_contains "DONE/2025-01/TASK-044-next.md"
	run git burl status --json
	[ "$(jq -c '.duplicates[0].paths | length' <<<"$output")" = 2 ]
	run git burl status
	assert_output_contains "has more than one file"
}

@test "status and the board count every DONE task but read only the newest months; the report reads them all" {
	new_burl_repo
	flat_done 150
	git burl init >/dev/null
	set_config max_parallel 0
	# 151 files in DONE: 150 tasks and one malformed, counted by its name.
	open=$(git burl add "Open one" --affects src/o.txt --json 2>/dev/null | jq -r .task.id)
	old=$(git burl add "Waits on an old one" --depends-on TASK-002 --affects src/w.txt --json 2>/dev/null | jq -r .task.id)
	waits=$(git burl add "Waits on an open one" --depends-on "$open" --affects src/x.txt --json 2>/dev/null | jq -r .task.id)
	run git burl status
	assert_output_contains "DONE 151"
	# Counted again after a month changed under the count's cache.
	month=$(ls .burl/.workflow/DONE | sort | head -1)
	f=$(ls .burl/.workflow/DONE/"$month"/*.md | head -1)
	git -C .burl rm -q "${f#.burl/}"
	git -C .burl commit -q -m "one task fewer, by hand"
	run git burl status
	assert_output_contains "DONE 150"
	git -C .burl revert --no-edit HEAD >/dev/null
	run git burl status
	assert_output_contains "DONE 151"
	run git burl monitor --once
	assert_success
	assert_output_contains "DONE 151"
	assert_output_contains "154 tasks"
	# The wait marker comes from DONE itself, not from the cards read.
	grep -q "^$waits m W" <<<"$output"
	grep -q "^$old m" <<<"$output"
	! grep -q "^$old m W" <<<"$output"
	# The report reads every DONE task (its lead times, its count).
	git burl monitor --html "$BATS_TEST_TMPDIR/r.html" >/dev/null
	grep -q '<th>DONE tasks</th><td>150</td>' "$BATS_TEST_TMPDIR/r.html"
}

@test "an init killed between its moves and its commit is finished by the next init" {
	new_burl_repo
	flat_done 5
	# What the kill leaves: the files in their month shards, uncommitted.
	for f in .burl/.workflow/DONE/TASK-00[2-5]-*.md; do
		m=$(sed -n 's/^completed_at: \([0-9]*-[0-9]*\).*/\1/p' "$f")
		mkdir -p ".burl/.workflow/DONE/$m"
		mv "$f" ".burl/.workflow/DONE/$m/"
	done
	run git burl init
	assert_success
	assert_output_contains "Moved 5 DONE task(s)"
	[ -z "$(git -C .burl status --porcelain)" ]
	[ "$(git -C .burl ls-files .workflow/DONE | grep -c '/DONE/20[0-9-]*/TASK-')" = 5 ]
	run git burl init
	refute_output_contains "Moved"
}
