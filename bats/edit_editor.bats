#!/usr/bin/env bats
# DESIGN §27: git burl edit ID --editor — the task's fields in the user's
# editor, checked on save; an edit that does not apply is kept, not lost.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	load lifecycle
	new_burl_repo
	git burl add "Cache the index" --tags perf --ac "fast" >/dev/null
}

# editor SCRIPT: $GIT_EDITOR is a script that runs SCRIPT on the file.
editor() {
	printf '#!/bin/sh\n%s\n' "$1" >"$BATS_TEST_TMPDIR/editor"
	chmod +x "$BATS_TEST_TMPDIR/editor"
	export GIT_EDITOR="$BATS_TEST_TMPDIR/editor"
}

@test "edit --editor applies what was saved, as one edit transition" {
	before=$(git rev-parse burl)
	# shellcheck disable=SC2016 # the editor's $1
	editor 'sed -i -e "s/^priority: medium/priority: high/" -e "s/^tags: \[perf\]/tags: [perf, db]/" -e "s/^    - fast/    - fast\n    - no file read twice/" "$1"'
	run git burl edit TASK-001 --editor
	assert_success
	assert_output_contains "priority"
	[ "$(field TASK-001 priority)" = high ]
	grep -qx '  - db' "$(task_file TASK-001)" || grep -q 'tags: \[perf, db\]' "$(task_file TASK-001)"
	grep -qx -- '- \[ \] no file read twice' "$(task_file TASK-001)"
	[ "$(git rev-list --count "$before"..burl)" = 1 ]
	[ "$(all_events | jq -r 'select(.action == "edit") | .task')" = TASK-001 ]
}

@test "edit --editor: a bad edit changes nothing, is kept with why, and the next --editor starts from it" {
	before=$(git rev-parse burl)
	# shellcheck disable=SC2016
	editor 'sed -i -e "s/^priority: medium/priority: urgent/" -e "s/^title: .*/title: Cache the index in memory/" "$1"'
	run git burl edit TASK-001 --editor
	assert_failure 1
	assert_output_contains 'priority "urgent" is not one of'
	assert_output_contains "your edit is kept in"
	[ "$(git rev-parse burl)" = "$before" ]
	[ "$(field TASK-001 priority)" = medium ]
	kept=$(git rev-parse --git-common-dir)/burl/edit-TASK-001.yaml
	grep -q '^# ! not applied: priority "urgent"' "$kept"
	grep -q '^title: Cache the index in memory' "$kept"
	# The next editor sees the kept edit (its title change), fixes the priority.
	# shellcheck disable=SC2016
	editor 'grep -q "^title: Cache the index in memory" "$1" || exit 1; sed -i "s/^priority: urgent/priority: high/" "$1"'
	run git burl edit TASK-001 --editor
	assert_success
	[ "$(field TASK-001 priority)" = high ]
	[ "$(field TASK-001 title)" = "Cache the index in memory" ]
	[ ! -e "$kept" ]
}

@test "edit --editor closed without a change changes nothing; flags with --editor are refused" {
	before=$(git rev-parse burl)
	editor 'true'
	run git burl edit TASK-001 --editor
	assert_success
	assert_output_contains "Nothing changed"
	[ "$(git rev-parse burl)" = "$before" ]
	run git burl edit TASK-001 --editor --priority high
	assert_failure 1
}
