#!/usr/bin/env bats
# git burl show / worktree with good and hostile IDs, and task files that
# are malformed: reported with their path and line, skipped, never touched.

load helpers
load foundation

setup() {
	new_burl_repo
	add_task "Jump" --priority high --affects src/jump.go
}

@test "show prints the metadata and the body" {
	run git burl show TASK-001
	assert_success
	assert_output_contains "TASK-001  Jump"
	assert_output_contains "bucket:        READY"
	assert_output_contains "priority:      high"
	assert_output_contains "affects:       src/jump.go"
	assert_output_contains "next:          git burl claim TASK-001"
	assert_output_contains "## QA Report"

	# IDs are accepted the ways a user types them.
	for id in task-001 1 001 TASK-1; do
		run git burl show "$id"
		assert_success || { echo "id $id"; return 1; }
		assert_output_contains "TASK-001  Jump"
	done
}

@test "show of a task added without criteria says it has none, never the template's placeholder criteria or hints" {
	run git burl show TASK-001
	assert_success
	refute_output_contains "Criterion 1"
	refute_output_contains "Single sentence describing"
	refute_output_contains "Relevant notes/links"
	refute_output_contains "Worker fills"
	[[ "$output" == *$'## Acceptance Criteria\n(none given)'* ]]
	assert_output_contains "## Objective"
	# Criteria given are shown as they are.
	add_task "Run" --description "The player runs" --ac "shift runs"
	run git burl show TASK-002
	assert_output_contains "- [ ] shift runs"
	refute_output_contains "(none given)"
}

@test "show --json is one document with the frontmatter, bucket, path and body" {
	git burl show 1 --json >"$BATS_TEST_TMPDIR/out.json"
	have_python || skip "python3 not installed"
	json_check "$BATS_TEST_TMPDIR/out.json" \
		'd["ok"] is True' \
		'd["task"]["id"] == "TASK-001"' \
		'd["task"]["bucket"] == "READY"' \
		'd["task"]["affects"] == ["src/jump.go"]' \
		'd["task"]["path"] == ".burl/.workflow/READY/TASK-001-jump.md"' \
		'"## QA Report" in d["body"]'
}

@test "show and worktree refuse IDs that are paths, and touch nothing" {
	head=$(burl_head)
	before=$(digest "$REPO")
	for id in ../etc /abs TASK-abc ../../../../etc/passwd 'TASK-001/../x' 0 ''; do
		for verb in show worktree; do
			run git burl "$verb" "$id"
			assert_failure 1 || { echo "$verb '$id'"; return 1; }
			assert_output_contains "is not a task ID" || { echo "$verb '$id'"; return 1; }
		done
	done
	[ "$(burl_head)" = "$head" ]
	[ "$(digest "$REPO")" = "$before" ]
	[ ! -e "$BATS_TEST_TMPDIR/abs" ]
	[ ! -e "$REPO/.worktrees/etc" ]

	run git burl show ../etc --json
	assert_failure 1
	[[ "$output" == '{"ok":false,"error":{"kind":"user","message":'*'is not a task ID'* ]]
}

@test "show and worktree of a task that does not exist exit 1" {
	run git burl show TASK-050
	assert_failure 1
	assert_output_contains "no task TASK-050"
	assert_output_contains "Fix: git burl status"
	run git burl worktree 50
	assert_failure 1
	assert_output_contains "no task TASK-050"
}

@test "worktree of a READY task says it was never claimed" {
	run git burl worktree 1
	assert_failure 1
	assert_output_contains "TASK-001 has no worktree"
	assert_output_contains "git burl claim TASK-001"
}

@test "show with no or two IDs is a usage error" {
	run git burl show
	assert_failure 1
	assert_output_contains "expects exactly one task ID"
	run git burl show 1 2
	assert_failure 1
}

# plant FILE CONTENT: hand-write a task file into READY and commit it, as a
# user (or a bad merge) might.
plant() {
	printf '%b' "$2" >"$WF/READY/$1"
	git -C .burl add ".workflow/READY/$1"
	git -C .burl commit -q -m "hand-written $1"
}

@test "a malformed task file is reported by path and line, skipped, and left byte-identical" {
	add_task "Fine too"
	plant TASK-003-broken.md '---\nid: TASK-003\ntitle: broken\npriority: [\n---\nbody\n'
	plant TASK-004-unclosed.md '---\nid: TASK-004\ntitle: never closed\n\nbody\n'
	plant TASK-005-wrong-id.md '---\nid: TASK-009\ntitle: wrong id\n---\n'
	plant TASK-006-escape.md '---\nid: TASK-006\ntitle: escape\naffects:\n  - ok.go\n  - ../../outside\n---\n'
	sums=$(cd "$WF/READY" && git hash-object TASK-003-broken.md TASK-004-unclosed.md TASK-005-wrong-id.md TASK-006-escape.md)
	head=$(burl_head)

	run git burl status
	assert_success
	assert_output_contains "READY 2 "
	assert_output_contains "TASK-001"
	assert_output_contains "TASK-002"
	assert_output_contains "Malformed task files (skipped)"
	assert_output_contains ".burl/.workflow/READY/TASK-003-broken.md:4: invalid YAML"
	assert_output_contains ".burl/.workflow/READY/TASK-004-unclosed.md:1: frontmatter is not closed"
	assert_output_contains ".burl/.workflow/READY/TASK-005-wrong-id.md:2: id TASK-009 does not match the file name"
	assert_output_contains ".burl/.workflow/READY/TASK-006-escape.md:6: affects"

	run git burl show 3
	assert_failure 1
	assert_output_contains "malformed task file .burl/.workflow/READY/TASK-003-broken.md:4"
	assert_output_contains "Fix: fix the frontmatter by hand"
	run git burl worktree 4
	assert_failure 1
	assert_output_contains ".burl/.workflow/READY/TASK-004-unclosed.md"

	# Adding goes on past them, without touching them.
	run git burl add "After the broken ones"
	assert_success
	[ -f "$WF/READY/TASK-007-after-the-broken-ones.md" ]

	[ "$(cd "$WF/READY" && git hash-object TASK-003-broken.md TASK-004-unclosed.md TASK-005-wrong-id.md TASK-006-escape.md)" = "$sums" ]
	[ "$(git -C .burl rev-parse HEAD~1)" = "$head" ]
	[ -z "$(git -C .burl status --porcelain)" ]
}

@test "status --json lists malformed files separately from tasks" {
	plant TASK-002-broken.md '---\nid: TASK-002\ntitle: x\npriority: [\n---\n'
	git burl status --json >"$BATS_TEST_TMPDIR/out.json"
	have_python || skip "python3 not installed"
	json_check "$BATS_TEST_TMPDIR/out.json" \
		'd["counts"]["READY"] == 1' \
		'[t["id"] for t in d["tasks"]] == ["TASK-001"]' \
		'd["malformed"][0]["path"] == ".burl/.workflow/READY/TASK-002-broken.md"' \
		'":4:" in d["malformed"][0]["error"]'
}

@test "a task file with CRLF line endings and unknown keys reads fine" {
	printf -- '---\r\nid: TASK-002\r\ntitle: Windows made this\r\npriority: low\r\nowner_team: games  # ours\r\n---\r\n\r\n## Objective\r\nWorks.\r\n' >"$WF/READY/TASK-002-crlf.md"
	run git burl show 2
	assert_success
	assert_output_contains "TASK-002  Windows made this"
	assert_output_contains "priority:      low"
	run git burl status
	assert_success
	refute_output_contains "Malformed"
}

@test "hand-named task files are found by the ID a user types, or reported" {
	plant TASK-7-seven.md '---\nid: TASK-007\ntitle: seven\n---\n'
	plant TASK-0008-eight.md '---\nid: TASK-0008\ntitle: eight\n---\n'

	run git burl status
	assert_success
	assert_output_contains "TASK-007  medium   seven"
	assert_output_contains ".burl/.workflow/READY/TASK-0008-eight.md:2: id TASK-0008 does not match the file name (TASK-008)"

	run git burl show 7
	assert_success
	assert_output_contains "file:          .burl/.workflow/READY/TASK-7-seven.md"
	run git burl show TASK-008
	assert_failure 1
	assert_output_contains "TASK-0008-eight.md:2"

	# New IDs go past every ID in use.
	add_task "Next"
	[ -f "$WF/READY/TASK-009-next.md" ]
}

@test "a BLOCKED task's whole reason is in show; status shows its summary under the task (DESIGN §20)" {
	reason="waits for the API key from ops: run git burl unblock TASK-001 once /etc/app/secrets/very/long/path/to/the/key.pem is there, then tell the agent $(printf 'x%.0s' {1..300})"
	git burl block TASK-001 --reason "$reason" >/dev/null
	run git burl show TASK-001
	assert_success
	assert_output_contains "blocked_reason: $reason"
	run git burl status
	# At most 120 characters, cut between words and marked.
	assert_output_contains "reason: waits for the API key from ops: run git burl unblock TASK-001 once /etc/app/secrets/very/long/path/to/the/key.pem is…"
	refute_output_contains "xxxx"
	assert_output_contains "next: git burl unblock TASK-001"
}
