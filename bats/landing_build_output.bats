#!/usr/bin/env bats
# Builds cannot block landing (DESIGN §15, issue 22.5): what a build burl
# runs in a task worktree leaves there untracked (compiler output nobody
# put in .gitignore) never makes submit, validate, approve or the queue
# refuse the task. The worker's own uncommitted changes still do.

load helpers
load lifecycle
load queue

# build_writes_output: build_command writes app.bin and out/obj.o in the
# worktree it runs in, as a compiler would, and fails on a file that
# says BROKEN.
build_writes_output() {
	cat >"$BATS_TEST_TMPDIR/build.sh" <<EOF
#!/bin/sh
echo "\$BURL_TASK" >>"$BUILDS"
mkdir -p out && date >out/obj.o && date >app.bin
if git grep -q BROKEN; then echo "build: a file says BROKEN"; exit 1; fi
echo "build ok"
EOF
}

@test "validate's build output does not block submit, approve, or the removal of the worktree" {
	queue_setup
	build_writes_output
	git burl add "feature" --affects f1.txt >/dev/null
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file f1.txt "work 1")
	# validate while DOING builds in the worktree: its output is no reason
	# for submit to refuse.
	run git burl validate TASK-001
	assert_success
	[ -e "$wt/app.bin" ] && [ -e "$wt/out/obj.o" ]
	run git burl submit TASK-001
	assert_success
	run git burl validate TASK-001
	assert_success
	[ "$(git -C "$wt" status --porcelain --untracked-files=all | sort)" = "$(printf '?? app.bin\n?? out/obj.o')" ]
	run git burl approve TASK-001
	assert_success
	refute_output_contains "uncommitted"
	refute_output_contains "warning"
	[ "$(bucket_of TASK-001)" = DONE ]
	git show main:f1.txt | grep -q "work 1"
	! git show main:app.bin 2>/dev/null
	[ ! -e "$wt" ]
	run git burl doctor
	assert_success
}

@test "approve --all: build output left by the bisection does not make the queue refuse the tasks it stages again" {
	queue_setup
	build_writes_output
	qa 1 critical
	qa 2 high "BROKEN on purpose"
	qa 3 medium
	run git burl approve --all --json
	assert_failure 2
	refute_output_contains "uncommitted"
	[ "$(jq -c '.approved' <<<"$output")" = '["TASK-001","TASK-003"]' ]
	[ "$(jq -c '[.rejected[].id]' <<<"$output")" = '["TASK-002"]' ]
	[ "$(bucket_of TASK-003)" = DONE ]
	git show main:f3.txt | grep -q "work 3"
}

@test "the worker's own changes still block approve: a tracked edit, and an untracked file that was there before the build" {
	queue_setup
	build_writes_output
	git burl add "feature" --affects f1.txt >/dev/null
	wt=$(submitted TASK-001 f1.txt "work 1")
	echo "forgotten" >"$wt/notes.txt"
	run git burl validate TASK-001
	assert_success
	run git burl approve TASK-001
	assert_failure 1
	assert_output_contains "?? notes.txt"
	refute_output_contains "app.bin"
	rm "$wt/notes.txt"
	echo "changed after submit" >>"$wt/f1.txt"
	run git burl approve TASK-001
	assert_failure 1
	assert_output_contains "M f1.txt"
	refute_output_contains "app.bin"
	[ "$(bucket_of TASK-001)" = QA ]
	git -C "$wt" checkout -q -- f1.txt
	run git burl approve TASK-001
	assert_success
}
