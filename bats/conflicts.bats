#!/usr/bin/env bats
# git burl conflicts (issue 11): real-diff conflict prediction between
# in-flight tasks and against main, with git merge-tree; nothing touched.

load helpers
load lifecycle

# work ID FILE CONTENT: claim ID and commit FILE in its worktree.
work() {
	local wt
	wt=$(claim_wt "$1") || return 1
	(cd "$wt" && commit_file "$2" "$3" "$1 edits $2")
}

@test "pairwise and against-main predictions, exit 2, JSON, and nothing touched" {
	new_burl_repo
	printf 'one\ntwo\nthree\n' >src/x.go
	git add src/x.go && git commit -q -m "x" && git push -q origin main
	for t in A B C D E; do git burl add "Task $t" --affects-glob 'src/**' --affects README.md >/dev/null 2>&1; done
	set_config conflict_policy ignore
	set_config max_parallel 0
	work TASK-001 src/x.go "$(printf 'ONE\ntwo\nthree')"
	work TASK-002 src/x.go "$(printf 'uno\ntwo\nthree')"
	work TASK-003 src/other.go 'package src'
	work TASK-004 README.md '# theirs'
	git burl claim TASK-005 >/dev/null   # no commit yet: not in flight
	git burl submit TASK-001 >/dev/null
	commit_file README.md '# main moved on' "main edits README"
	refs=$(git for-each-ref --format='%(refname) %(objectname)')
	status_before=$(git -C .worktrees/task-001-task-a status --porcelain)

	run git burl conflicts --json
	assert_failure 2
	[ "$(jq -c '.conflicts' <<<"$output")" = '[{"a":"TASK-004","b":"main","files":["README.md"]},{"a":"TASK-001","b":"TASK-002","files":["src/x.go"]}]' ]
	run git burl conflicts
	assert_failure 2
	assert_output_contains "2 conflict(s) predicted among 4 in-flight task(s)"
	assert_output_contains "TASK-001 × TASK-002: src/x.go"
	assert_output_contains "TASK-004 × main: README.md"
	run git burl status --json
	assert_success
	[ "$(jq -c '[.tasks[] | select(.conflicts) | {id, c: [.conflicts[] | .with]}]' <<<"$output")" = '[{"id":"TASK-002","c":["TASK-001"]},{"id":"TASK-004","c":["main"]},{"id":"TASK-001","c":["TASK-002"]}]' ]
	run git burl status
	assert_output_contains "[conflicts with TASK-002: src/x.go]"
	assert_output_contains "[conflicts with main: README.md]"
	# A second status finds every pair in its cache: no merge runs.
	run env BURL_TRACE=1 git burl status
	refute_output_contains "merge-tree"
	[ "$(git for-each-ref --format='%(refname) %(objectname)')" = "$refs" ]
	[ "$(git -C .worktrees/task-001-task-a status --porcelain)" = "$status_before" ]
	[ -z "$(git status --porcelain)" ]
}

@test "no conflict: exit 0" {
	new_burl_repo
	git burl add "A" --affects-glob 'src/**' >/dev/null 2>&1
	git burl add "B" --affects-glob 'lib/**' >/dev/null 2>&1
	work TASK-001 src/a.go 'package src'
	work TASK-002 lib/b.go 'package lib'
	run git burl conflicts
	assert_success
	assert_output_contains "No conflict predicted among 2 in-flight task(s)"
	run git burl conflicts --json
	assert_success
	[ "$(jq -c .conflicts <<<"$output")" = "[]" ]
}

@test "claim applies conflict_policy to a reused branch's real conflicts: fail refuses, warn warns; a conflict with main only warns" {
	new_burl_repo
	printf 'one\ntwo\nthree\n' >src/x.go
	git add src/x.go && git commit -q -m "x" && git push -q origin main
	git burl add "Task A" --affects src/x.go >/dev/null 2>&1
	git burl add "Task B" --affects src/x.go >/dev/null 2>&1
	set_config max_parallel 0
	# B's work stays on its branch when B goes back to READY.
	work TASK-002 src/x.go "$(printf 'uno\ntwo\nthree')"
	git burl release TASK-002 --reason "agent died" >/dev/null
	work TASK-001 src/x.go "$(printf 'ONE\ntwo\nthree')"
	git burl submit TASK-001 >/dev/null
	# A is in QA: no declared overlap (that looks at DOING), a real conflict.
	run git burl claim TASK-002
	assert_failure 4
	assert_output_contains "TASK-002: its work conflicts with TASK-001's in src/x.go"
	assert_output_contains "conflict_policy: warn"
	[ "$(bucket_of TASK-002)" = READY ]
	# Claiming the next task passes it over, and says why.
	run git burl claim
	assert_failure 4
	assert_output_contains "TASK-002: its work conflicts with TASK-001's in src/x.go"
	[ "$(bucket_of TASK-002)" = READY ]
	set_config conflict_policy warn
	run git burl claim TASK-002
	assert_success
	assert_output_contains "warning: TASK-002: its work conflicts with TASK-001's in src/x.go (conflict_policy: warn)"
	[ "$(bucket_of TASK-002)" = DOING ]
	git burl release TASK-002 --reason "again" >/dev/null
	# Once A landed, B's work conflicts with main: only its claimer can
	# resolve that, so even fail lets the claim through, with the advice.
	git burl approve TASK-001 >/dev/null
	set_config conflict_policy fail
	git burl claim TASK-002 --json >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	[ "$(jq -c '.conflicts' "$BATS_TEST_TMPDIR/out")" = '[{"a":"TASK-002","b":"main","files":["src/x.go"]}]' ]
	[ "$(jq -r '.main_moved' "$BATS_TEST_TMPDIR/out")" -ge 1 ]
	[ "$(bucket_of TASK-002)" = DOING ]
	git burl release TASK-002 --reason "once more" >/dev/null
	run git burl claim TASK-002
	assert_success
	assert_output_contains "TASK-002's work conflicts with main in src/x.go: rebase it on main"
}

@test "a conflicting file name with a control character is shown escaped" {
	new_burl_repo
	evil=$'src/evil\e[2J.go'
	printf 'one\n' >"$evil"
	git add -A && git commit -q -m "evil" && git push -q origin main
	git burl add "A" --affects-glob 'src/**' >/dev/null 2>&1
	git burl add "B" --affects-glob 'src/**' >/dev/null 2>&1
	set_config conflict_policy ignore
	work TASK-001 "$evil" 'ONE'
	work TASK-002 "$evil" 'uno'
	run git burl conflicts
	assert_failure 2
	assert_output_contains 'src/evil\x1b[2J.go'
	refute_output_contains $'\e'
}
