#!/usr/bin/env bats
# git burl doctor (read-only, exit 0 healthy / 2 problems) and
# doctor --repair --force (PRD 10.6): what is found, what is repaired, and
# what is left for a human because no repair would be safe.

load helpers

# findings KIND: "task path repairable" of each finding of that kind.
findings() {
	git burl doctor --json | jq -r --arg k "$1" '.findings[] | select(.kind == $k) | "\(.task) \(.path) \(.repairable)"'
}

@test "a healthy workflow: doctor exits 0; --repair needs --force" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	run git burl doctor
	assert_success
	assert_output_contains "healthy"
	run git burl doctor --json
	assert_success
	[ "$output" = '{"ok":true,"healthy":true,"findings":[]}' ]
	before=$(git rev-parse burl)
	run git burl doctor --repair
	assert_failure 1
	assert_output_contains "--force"
	run git burl doctor --force
	assert_failure 1
	[ "$(git rev-parse burl)" = "$before" ]
}

@test "orphan worktree and branches, a malformed task file and a stray file are reported with path and fix, and left alone" {
	new_burl_repo
	git worktree add -q .worktrees/task-009-ghost -b task-009-ghost
	git branch task-010-old main
	printf 'no frontmatter here\n' >.burl/.workflow/READY/TASK-005-broken.md
	git -C .burl add -A && git -C .burl commit -q -m "a broken task"
	printf 'notes\n' >.burl/notes.txt

	run git burl doctor
	assert_failure 2
	assert_output_contains ".burl/.workflow/READY/TASK-005-broken.md"
	run git burl doctor --json
	assert_failure 2
	jq -e '.ok == true and .healthy == false' <<<"$output" >/dev/null
	jq -e 'all(.findings[]; (.message | length) > 0 and (.fix | length) > 0 and (.path | length) > 0)' <<<"$output" >/dev/null
	[ "$(findings orphan_worktree)" = "null .worktrees/task-009-ghost false" ]
	[ "$(findings orphan_branch | sort)" = "$(printf 'null refs/heads/task-009-ghost false\nnull refs/heads/task-010-old false')" ]
	[ "$(findings malformed_task)" = "TASK-005 .burl/.workflow/READY/TASK-005-broken.md false" ]
	[ "$(findings unexpected_change)" = "null .burl/notes.txt false" ]

	run git burl doctor --repair --force
	assert_failure 2
	[ -d .worktrees/task-009-ghost ]
	git rev-parse -q --verify task-009-ghost >/dev/null
	git rev-parse -q --verify task-010-old >/dev/null
	[ "$(cat .burl/.workflow/READY/TASK-005-broken.md)" = "no frontmatter here" ]
	[ -f .burl/notes.txt ]
}

@test "a DOING task's lost worktree and base_sha are restored by repair, and submit works again" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/feature/**' >/dev/null
	git burl claim TASK-001 >/dev/null
	wt=.worktrees/task-001-feature
	(cd $wt && commit_file src/feature/a.go 'package feature' "work on TASK-001")
	base=$(git burl show TASK-001 --json | jq -r .task.base_sha)
	rm -rf "$wt"
	file=.burl/.workflow/DOING/TASK-001-feature.md
	sed 's/^base_sha: .*/base_sha: null/' "$file" >"$file.new" && mv "$file.new" "$file"
	git -C .burl commit -q -am "lose base_sha"

	run git burl doctor --json
	assert_failure 2
	[ "$(findings missing_base_sha)" = "TASK-001 .burl/.workflow/DOING/TASK-001-feature.md true" ]
	[ "$(findings missing_worktree)" = "TASK-001 $wt true" ]
	run git burl doctor --repair --force
	assert_success
	[ "$(git burl show TASK-001 --json | jq -r .task.base_sha)" = "$base" ]
	[ "$(git -C $wt symbolic-ref --short HEAD)" = task-001-feature ]
	[ "$(git -C $wt log -1 --format=%s)" = "work on TASK-001" ]
	[ "$(git burl log --action repair --json | jq '.events | length')" -eq 2 ]
	run git burl doctor
	assert_success
	run git burl submit TASK-001
	assert_success
}

@test "a committed hand edit that breaks a bucket's rules is reported, never moved: the folder wins" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	git -C .burl mv .workflow/READY/TASK-001-feature.md .workflow/QA/
	git -C .burl commit -q -m "moved by hand"
	run git burl doctor --json
	assert_failure 2
	[ "$(findings bucket_mismatch)" = "TASK-001 .burl/.workflow/QA/TASK-001-feature.md false" ]
	assert_output_contains "submitted_sha is missing"
	run git burl doctor --repair --force
	assert_failure 2
	[ "$(bucket_of TASK-001)" = QA ]
}

@test "release and block killed between write and move: repair finishes the move the metadata proves" {
	new_burl_repo
	git burl add "One" >/dev/null
	git burl add "Two" >/dev/null
	git burl claim TASK-001 >/dev/null
	git burl claim TASK-002 >/dev/null
	run env BURL_CRASH_AFTER=release:write git burl release TASK-001
	[ "$status" -eq 137 ]
	git burl lock clear workflow --force >/dev/null
	run env BURL_CRASH_AFTER=block:write git burl block TASK-002 --reason "waits for the API"
	[ "$status" -eq 137 ]
	run git burl doctor --json
	assert_failure 2
	[ "$(findings bucket_mismatch | cut -d' ' -f1,3 | sort | tr '\n' ' ')" = "TASK-001 true TASK-002 true " ]
	run git burl doctor --repair --force
	assert_success
	[ "$(bucket_of TASK-001)" = READY ]
	[ "$(bucket_of TASK-002)" = BLOCKED ]
	[ -z "$(git -C .burl status --porcelain)" ]
	run git burl claim TASK-001
	assert_success
	assert_output_contains "reusing branch task-001-one"
}

@test "uncommitted workflow changes are committed by repair as a repair event" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	printf '\nA note added by hand.\n' >>.burl/.workflow/READY/TASK-001-feature.md
	run git burl doctor --json
	assert_failure 2
	[ "$(findings uncommitted_change)" = "TASK-001 .burl/.workflow/READY/TASK-001-feature.md true" ]
	run git burl doctor --repair --force
	assert_success
	[ -z "$(git -C .burl status --porcelain)" ]
	git -C .burl show HEAD:.workflow/READY/TASK-001-feature.md | grep -q "A note added by hand."
	[ "$(git burl log --action repair --json | jq -r '.events[-1].details.committed[0]')" = .burl/.workflow/READY/TASK-001-feature.md ]
}

@test "the workflow branch checked out outside .burl is reported" {
	new_burl_repo
	git -C .burl switch -q --detach
	git worktree add -q "$BATS_TEST_TMPDIR/elsewhere" burl
	run git burl doctor --json
	assert_failure 2
	[ "$(findings workflow_branch)" = "null .burl false" ]
	assert_output_contains "elsewhere"
	git worktree remove "$BATS_TEST_TMPDIR/elsewhere"
	git -C .burl switch -q burl
	run git burl doctor
	assert_success
}

@test "a task blocked from QA and unblocked is READY without owner or submission, as doctor expects" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git burl claim TASK-001 >/dev/null
	(cd .worktrees/task-001-feature && commit_file src/a.go 'package src')
	git burl submit TASK-001 >/dev/null
	git burl block TASK-001 --reason "waits for review" >/dev/null
	git burl unblock TASK-001 >/dev/null
	[ "$(git burl show TASK-001 --json | jq -r '[.task.assigned_to, .task.submitted_sha, .task.submitted_at] | map(tostring) | join(" ")')" = "null null null" ]
	run git burl doctor
	assert_success
}

@test "doctor waits for a command in flight instead of reporting its half-done change" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	lockf=.burl/.workflow/locks/workflow.lock
	printf '{"owner":"agent-7","host":"%s","pid":%s,"created_at":"%s","action":"claim"}\n' "$(uname -n)" $$ "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >$lockf
	printf '\nedited by the command in flight\n' >>.burl/.workflow/READY/TASK-001-feature.md
	(
		sleep 1
		git -C .burl commit -q -am "the command in flight commits"
		rm -f "$lockf"
	) &
	inflight=$!
	run git burl doctor
	wait "$inflight"
	assert_success
	refute_output_contains "uncommitted"
}
