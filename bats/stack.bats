#!/usr/bin/env bats
# Stacked tasks (DESIGN §26, config stack: true): a child claimed on its
# parent's submitted head while the parent waits in QA, never landed before
# it, and restacked with git rebase --onto <main> <stack_base> when the
# parent lands — so that after a squash a file the parent added and the
# child deleted stays deleted.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle

# stacked_repo: TASK-001 (the parent: adds added.txt, changes README.md)
# submitted; TASK-002 depends on it (deletes added.txt, adds child.txt).
stacked_repo() {
	new_burl_repo
	set_config merge_strategy squash
	set_config max_parallel 0
	[ -n "${NOSTACK:-}" ] || stack_on
	git burl add "Parent" --affects added.txt --affects README.md >/dev/null
	git burl add "Child" --affects added.txt --affects child.txt --depends-on TASK-001 >/dev/null
	PARENT_WT=$(claim_wt TASK-001)
	(
		cd "$PARENT_WT" || exit 1
		# Two steps each: after a squash, no commit of main is either
		# step, so a plain rebase of the child would replay them.
		commit_file added.txt "parent draft" "parent adds a file"
		printf '# demo\nparent draft\n' >README.md
		git commit -q -am "parent changes README"
		commit_file added.txt "added by the parent" "parent finishes the file"
		printf '# demo\nparent line\n' >README.md
		git commit -q -am "parent finishes README"
	)
	git burl submit TASK-001 >/dev/null
	PARENT_HEAD=$(git rev-parse task-001-parent)
}

# stack_on: stack: true in config.yaml (init does not write the key).
stack_on() {
	printf 'stack: true\n' >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: stack" -- .workflow/config.yaml
}

# child_work: claim TASK-002 and do its work (delete added.txt, add
# child.txt), submitted.
child_work() {
	CHILD_WT=$(claim_wt TASK-002) || return 1
	(
		cd "$CHILD_WT" || exit 1
		git rm -q added.txt && git commit -q -m "child deletes the parent's file"
		commit_file child.txt "child" "child adds its file"
	) || return 1
	git burl submit TASK-002 >/dev/null
}

@test "stack: a child is claimed on its parent's submitted head while the parent is in QA (stacked_on, stack_base)" {
	NOSTACK=1 stacked_repo
	# Without stack: true it waits for its parent to be DONE.
	run git burl claim TASK-002
	assert_failure 4
	assert_output_contains "TASK-001"
	stack_on
	run git burl claim TASK-002
	assert_success
	[ "$(field TASK-002 stacked_on)" = TASK-001 ]
	[ "$(field TASK-002 stack_base)" = "$PARENT_HEAD" ]
	wt=$(git burl worktree TASK-002)
	[ "$(git -C "$wt" rev-parse HEAD)" = "$PARENT_HEAD" ]
	[ "$(cat "$wt/added.txt")" = "added by the parent" ]
	# Its gates judge its own change only: the parent's README change is
	# outside its scope and does not count.
	(cd "$wt" && commit_file child.txt "child" "child adds its file")
	run git burl submit TASK-002
	assert_success
	[ "$(bucket_of TASK-002)" = QA ]
	run git burl doctor
	assert_success
}

@test "stack: approve of a child is refused, naming its parent, until the parent lands" {
	stacked_repo
	child_work
	main0=$(git rev-parse main)
	run git burl approve TASK-002
	assert_failure 1
	assert_output_contains "TASK-002 is stacked on TASK-001, which is in QA"
	assert_output_contains "git burl approve TASK-001"
	[ "$(git rev-parse main)" = "$main0" ]
	[ "$(bucket_of TASK-002)" = QA ]
}

@test "stack: after the parent's squash landing the child is restacked with rebase --onto: a file the parent added and the child deleted stays deleted" {
	stacked_repo
	child_work
	commit_file other.txt other "main moves on"
	run git burl approve TASK-001
	assert_success
	assert_output_contains "restacked TASK-002 onto main"
	# The parent is one squash commit; the child now sits on it.
	[ "$(git log -1 --format=%s main)" = "Parent (TASK-001)" ]
	[ "$(field TASK-002 stack_base)" = "$(git rev-parse main)" ]
	[ "$(git rev-parse "$(field TASK-002 submitted_sha)^^")" = "$(git rev-parse main)" ]
	run git burl approve TASK-002
	assert_success
	[ "$(git log -1 --format=%s main)" = "Child (TASK-002)" ]
	# Resurrection: added.txt stays deleted; README.md is exactly the parent's.
	! git cat-file -e main:added.txt 2>/dev/null
	[ "$(git show main:README.md)" = "$(printf '# demo\nparent line')" ]
	[ "$(git show main:child.txt)" = child ]
	git cat-file -e main:other.txt
	run git burl verify main~2..main
	assert_success
	run git burl doctor
	assert_success
}

@test "stack: approve --all lands the parent, then its restacked child, in one run" {
	stacked_repo
	child_work
	run git burl approve --all --json
	assert_success
	[ "$(jq -r '.approved | join(",")' <<<"$output")" = TASK-001,TASK-002 ]
	[ "$(git log -2 --format=%s main | paste -sd,)" = "Child (TASK-002),Parent (TASK-001)" ]
	! git cat-file -e main:added.txt 2>/dev/null
	[ "$(git show main:README.md)" = "$(printf '# demo\nparent line')" ]
}

@test "stack: approve --all --dry-run puts the child right after its parent, in the parent's batch, as approve --all lands them" {
	stacked_repo
	child_work
	run git burl approve --all --dry-run --json
	assert_success
	[ "$(jq -c '.batches' <<<"$output")" = '[["TASK-001","TASK-002"]]' ]
	[ "$(jq -c '.queue[] | select(.id == "TASK-002") | [.position, .batch, .stacked_on, .waits]' <<<"$output")" = '[2,1,"TASK-001","queue"]' ]
	run git burl approve --all --dry-run
	assert_output_contains "batch 1: TASK-001, TASK-002 (after TASK-001, which it is stacked on)"
	[ "$(bucket_of TASK-001)" = QA ]
	# With a batch of one the child gets a batch of its own, after its
	# parent's.
	set_config queue_batch 1
	run git burl approve --all --dry-run --json
	[ "$(jq -c '.batches' <<<"$output")" = '[["TASK-001"],["TASK-002"]]' ]
	set_config queue_batch 4
	run git burl approve --all --json
	[ "$(jq -r '.approved | join(",")' <<<"$output")" = TASK-001,TASK-002 ]
}

# batch_build CMD: build_command CMD, set once both tasks are submitted
# (their submits ran no build).
batch_build() {
	set_config build_command "$1"
}

@test "stack: approve --all builds a parent and its child in one batch, the child staged on the parent's squash: one build, landed parent first" {
	stacked_repo
	child_work
	batch_build "'test -e child.txt'"
	run git burl approve --all
	assert_success
	# One build, on the child's staged commit (which holds the parent's
	# squash): the test needs the child's file.
	assert_output_contains "2 approved, 0 not approved, 1 build(s)"
	[ "$(git log -2 --format=%s main | paste -sd,)" = "Child (TASK-002),Parent (TASK-001)" ]
	[ "$(git rev-list --count main~2..main)" = 2 ]
	! git cat-file -e main:added.txt 2>/dev/null
	[ "$(git show main:README.md)" = "$(printf '# demo\nparent line')" ]
	[ "$(git show main:child.txt)" = child ]
	# The parent's landing record names the build it passed: the child's
	# commit on top of it.
	run git burl verify main~2..main
	assert_success
	run git burl doctor
	assert_success
}

@test "stack: a chain of three lands in one batch and one build, each task replayed onto the one below's squash" {
	stacked_repo
	child_work
	git burl add "Grandchild" --affects grand.txt --depends-on TASK-002 >/dev/null
	wt=$(claim_wt TASK-003)
	[ "$(field TASK-003 stacked_on)" = TASK-002 ]
	(cd "$wt" && commit_file grand.txt "grand" "grandchild adds its file")
	git burl submit TASK-003 >/dev/null
	batch_build "'test -e grand.txt'"
	run git burl approve --all
	assert_success
	assert_output_contains "3 approved, 0 not approved, 1 build(s)"
	[ "$(git log -3 --format=%s main | paste -sd,)" = "Grandchild (TASK-003),Child (TASK-002),Parent (TASK-001)" ]
	[ "$(git show main:grand.txt)" = grand ]
	! git cat-file -e main:added.txt 2>/dev/null
	run git burl doctor
	assert_success
}

@test "stack: a child that breaks the batch's build is rejected alone, bisected to it; its parent lands" {
	stacked_repo
	child_work
	batch_build "'test ! -e child.txt'"
	run git burl approve --all
	assert_failure 2
	assert_output_contains "1 approved, 1 not approved"
	assert_output_contains "not approved TASK-002: build_command failed (bisected to it)"
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(bucket_of TASK-002)" = READY ]
	[ "$(git log -1 --format=%s main)" = "Parent (TASK-001)" ]
	! git cat-file -e main:child.txt 2>/dev/null
	grep -q "bisected the batch to it" "$(task_file TASK-002)"
	run git burl doctor
	assert_success
}

@test "stack: a parent that breaks the batch's build is rejected, bisected to it; its child does not land, and waits in QA as submitted" {
	stacked_repo
	child_work
	child_head=$(field TASK-002 submitted_sha)
	main0=$(git rev-parse main)
	batch_build "'! grep -q \"parent line\" README.md'"
	run git burl approve --all --json
	assert_failure 2
	[ "$(jq -r '.approved | length' <<<"$output")" = 0 ]
	[ "$(jq -r '.rejected[0].id' <<<"$output")" = TASK-001 ]
	[ "$(jq -r '.waiting[0].id' <<<"$output")" = TASK-002 ]
	[ "$(jq -r '.waiting[0].reason' <<<"$output")" = "waits for TASK-001, which it is stacked on and which is in READY" ]
	[ "$(bucket_of TASK-001)" = READY ]
	grep -q "bisected the batch to it" "$(task_file TASK-001)"
	[ "$(bucket_of TASK-002)" = QA ]
	[ "$(git rev-parse main)" = "$main0" ]
	# The child's branch is back where it was submitted, nothing staged.
	[ "$(git rev-parse task-002-child)" = "$child_head" ]
	[ "$(field TASK-002 submitted_sha)" = "$child_head" ]
	[ -z "$(ls "$REPO/.git/burl/approve-intent" 2>/dev/null)" ]
	run git burl doctor
	assert_success
}

@test "stack: a hand-claimed child whose own commits conflict with main when restacked goes to BLOCKED with the files and the parent's landed commit" {
	stacked_repo
	wt=$(claim_wt TASK-002)
	git burl scope TASK-002 --affects src/jump.go --reason "the child changes Jump" >/dev/null
	(cd "$wt" && printf '%s\n' "$(jump_go 'child()')" >src/jump.go && git commit -q -am "child changes Jump")
	git burl submit TASK-002 >/dev/null
	child_head=$(git rev-parse task-002-child)
	printf '%s\n' "$(jump_go 'main()')" >src/jump.go
	git commit -q -am "main changes Jump"
	run git burl approve TASK-001
	assert_success
	# No agent works it: nobody would take it from READY, so it waits for
	# its human in BLOCKED, saying what to do.
	assert_output_contains "TASK-002 BLOCKED: restacking it onto main conflicts in src/jump.go"
	[ "$(bucket_of TASK-002)" = BLOCKED ]
	landed=$(git rev-parse --short=10 main)
	grep -q "TASK-001 landed as $landed" "$(task_file TASK-002)"
	grep -q -- "- src/jump.go" "$(task_file TASK-002)"
	grep -q "git rebase --onto $(git rev-parse main) " "$(task_file TASK-002)"
	git burl show TASK-002 | grep -q "conflicts in src/jump.go"
	# Nothing was left half done in its worktree, and its work is kept.
	[ -z "$(git -C "$wt" status --porcelain)" ]
	[ "$(git rev-parse task-002-child)" = "$child_head" ]
	# The human resolves it as told and lands it.
	(cd "$wt" && ! git rebase -q --onto main "$PARENT_HEAD" >/dev/null 2>&1 && printf '%s\n' "$(jump_go 'both()')" >src/jump.go && git add src/jump.go && GIT_EDITOR=true git rebase --continue >/dev/null)
	run git burl unblock TASK-002 --claim
	assert_success
	run git burl submit TASK-002
	assert_success
	run git burl approve TASK-002
	assert_success
	[ "$(git show main:src/jump.go)" = "$(jump_go 'both()')" ]
	[ "$(git show main:README.md)" = "$(printf '# demo\nparent line')" ]
}

@test "stack: a parent submitted again with a new head restacks its child onto that head" {
	stacked_repo
	child_work
	git burl reject TASK-001 --reason "finish the file" >/dev/null
	git burl claim TASK-001 >/dev/null
	(cd "$PARENT_WT" && commit_file README.md "$(printf '# demo\nparent line, reviewed')" "parent answers the review")
	run git burl submit TASK-001
	assert_success
	new=$(git rev-parse task-001-parent)
	assert_output_contains "restacked TASK-002 onto TASK-001's new head"
	[ "$(field TASK-002 stack_base)" = "$new" ]
	[ "$(git rev-parse "$(field TASK-002 submitted_sha)~2")" = "$new" ]
	# Then both land, the child's own change on top of the parent's last one.
	run git burl approve --all
	assert_success
	! git cat-file -e main:added.txt 2>/dev/null
	[ "$(git show main:README.md)" = "$(printf '# demo\nparent line, reviewed')" ]
}

@test "stack: cancelling a parent blocks its DOING and QA children, naming it; a READY dependant still refuses the cancel" {
	stacked_repo
	git burl add "Grandchild" --affects grand.txt --depends-on TASK-002 >/dev/null
	git burl add "Later" --affects later.txt --depends-on TASK-001 >/dev/null
	child_work
	# TASK-004 is READY and not stacked: the cancel is refused for it.
	run git burl cancel TASK-001 --reason "not needed after all"
	assert_failure 1
	assert_output_contains "TASK-004 depends on TASK-001"
	[ "$(bucket_of TASK-001)" = QA ]
	git burl edit TASK-004 --remove-depends-on TASK-001 >/dev/null
	# The grandchild works on the child's head.
	git burl claim TASK-003 >/dev/null
	[ "$(field TASK-003 stacked_on)" = TASK-002 ]
	run git burl cancel TASK-001 --reason "not needed after all"
	assert_success
	assert_output_contains "TASK-002 blocked: it is stacked on TASK-001, which was cancelled: not needed after all"
	assert_output_contains "TASK-003 blocked: it is stacked on TASK-002, which is BLOCKED"
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(bucket_of TASK-002)" = BLOCKED ]
	[ "$(bucket_of TASK-003)" = BLOCKED ]
	grep -q "^blocked_reason: .*it is stacked on TASK-001, which was cancelled: not needed after all" "$(task_file TASK-002)"
	git burl show TASK-003 | grep -q "stacked on TASK-002, which is BLOCKED"
	all_events | jq -s -e 'any(.[]; .action == "block" and .task == "TASK-002" and .details.stacked_on == "TASK-001")' >/dev/null
	run git burl doctor
	assert_success
}

@test "stack: a parent that goes to BLOCKED blocks its child, naming it and why" {
	stacked_repo
	child_work
	run git burl block TASK-001 --reason "the API it calls is being redesigned"
	assert_success
	assert_output_contains "TASK-002 blocked: it is stacked on TASK-001, which is BLOCKED: the API it calls is being redesigned"
	[ "$(bucket_of TASK-002)" = BLOCKED ]
	# Nothing lands it meanwhile.
	run git burl approve TASK-002
	assert_failure
}

@test "stack: status, show, the board and the HTML report draw a stack as a chain" {
	stacked_repo
	git burl add "Grandchild" --affects grand.txt --depends-on TASK-002 >/dev/null
	git burl add "Unstacked" --affects other.txt >/dev/null
	child_work
	git burl claim TASK-003 >/dev/null
	run git burl status
	assert_success
	grep -E "^  TASK-002 .*Child.*  ↳ on TASK-001" <<<"$output"
	grep -E "^  TASK-003 .*Grandchild.*  ↳ on TASK-002" <<<"$output"
	! grep -E "^  TASK-00[14] .*↳" <<<"$output"
	# Its next step is its parent's landing, never an approve it refuses.
	grep -A1 -E "^  TASK-002 " <<<"$output" | grep -q "next: waits for TASK-001, which it is stacked on, to land first (git burl approve TASK-001;"
	[ "$(state_of TASK-002)" = waits_dependency ]
	[ "$(suggest_of TASK-002)" = "" ]
	run git burl show TASK-002
	assert_success
	assert_output_contains "stack:         TASK-001 [QA] → TASK-002 [QA] (this) → TASK-003 [DOING]"
	run git burl show TASK-001
	assert_output_contains "stack:         TASK-001 [QA] (this) → TASK-002 [QA] → TASK-003 [DOING]"
	run git burl show TASK-004
	refute_output_contains "stack:"
	run git burl monitor --once
	assert_success
	assert_output_contains "↳ on TASK-002"
	git burl monitor --html "$BATS_TEST_TMPDIR/report.html" >/dev/null
	grep -q '<div class="meta stack">↳ on TASK-001</div>' "$BATS_TEST_TMPDIR/report.html"
	grep -q '<div class="meta stack">↳ on TASK-002</div>' "$BATS_TEST_TMPDIR/report.html"
	# After the parent lands the child is no longer drawn on an open task.
	git burl approve TASK-001 >/dev/null
	run git burl show TASK-002
	assert_output_contains "stack:         TASK-001 [DONE] → TASK-002 [QA] (this) → TASK-003 [DOING]"
}

@test "stack: show --json carries the chain the text view draws, each task with the one it is stacked on" {
	stacked_repo
	git burl add "Grandchild" --affects grand.txt --depends-on TASK-002 >/dev/null
	git burl add "Unstacked" --affects other.txt >/dev/null
	child_work
	git burl claim TASK-003 >/dev/null
	run git burl show TASK-002 --json
	assert_success
	[ "$(jq -c '.stack' <<<"$output")" = '[{"id":"TASK-001","bucket":"QA","stacked_on":""},{"id":"TASK-002","bucket":"QA","stacked_on":"TASK-001"},{"id":"TASK-003","bucket":"DOING","stacked_on":"TASK-002"}]' ]
	# Its children: the tasks stacked on it.
	[ "$(git burl show TASK-001 --json | jq -r '[.stack[] | select(.stacked_on == "TASK-001") | .id] | join(",")')" = TASK-002 ]
	[ "$(git burl show TASK-004 --json | jq -c '.stack')" = null ]
}
