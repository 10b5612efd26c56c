#!/usr/bin/env bats
# DESIGN §26 with landing: pr against a real Gitea on loopback: a task
# stacked on a parent whose pull request is open gets its own request onto
# the parent's branch (only its own change to review), burl never merges it
# there, and once the parent merged (here: squash) sync restacks the child
# onto main with git rebase --onto, pushes it with lease and retargets the
# same request to main, then deletes the parent's branch.

bats_require_minimum_version 1.5.0

setup_file() {
	load forge
	forge_setup_file
}

teardown_file() {
	load forge
	forge_teardown_file
}

setup() {
	load helpers
	load lifecycle
	load forge
	new_gitea_repo
	printf 'stack: true\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -q -m "config: stack" -- .workflow/config.yaml
	git burl add "Parent" --affects added.txt --affects README.md >/dev/null
	git burl add "Child" --affects added.txt --affects child.txt --depends-on TASK-001 >/dev/null
	PARENT_WT=$(claim_wt TASK-001)
	(
		cd "$PARENT_WT" || exit 1
		# Two commits: after the squash no commit of main is either one,
		# so a plain rebase of the child would replay them.
		commit_file added.txt "parent draft" "parent adds a file"
		printf '# demo\nparent line\n' >README.md
		git commit -q -am "parent changes README"
		commit_file added.txt "added by the parent" "parent finishes the file"
		git burl submit TASK-001 >/dev/null
	)
	# Someone else's work reaches main meanwhile: approve rebases the
	# parent, so its request's head is not the head the child started on.
	commit_file other.txt "someone else's" "someone else's work"
	git push -q origin main
}

# child_submitted: claim TASK-002 stacked on TASK-001 (delete the parent's
# file, add child.txt) and submit it.
child_submitted() {
	CHILD_WT=$(claim_wt TASK-002) || return 1
	(
		cd "$CHILD_WT" || exit 1
		git rm -q added.txt && git commit -q -m "child deletes the parent's file"
		commit_file child.txt "child" "child adds its file"
		git burl submit TASK-002 >/dev/null
	)
}

# pr_files N: "STATUS NAME" for each file pull request N changes, sorted.
pr_files() {
	gitea_api GET "/repos/$GITEA_REPO/pulls/$1/files" | jq -r '.[] | "\(.status) \(.filename)"' | sort
}

# parent_tip: the Gitea's task-001-parent ("" once it is deleted).
parent_tip() {
	git ls-remote origin refs/heads/task-001-parent | cut -f1
}

@test "stack through Gitea: the child's request targets the parent's branch, is retargeted to main after the parent's squash merge, and is never merged into the parent's branch" {
	run git burl approve TASK-001
	assert_success
	[ "$(pr_field 1 base.ref)" = main ]
	parent_head=$(field TASK-001 pr_head)
	[ "$(parent_tip)" = "$parent_head" ]

	child_submitted
	[ "$(field TASK-002 stacked_on)" = TASK-001 ]
	run git burl approve TASK-002
	assert_success
	assert_output_contains "Opened pull request #2 for TASK-002"
	assert_output_contains "It targets task-001-parent, the branch of TASK-001"
	[ "$(pr_field 2 base.ref)" = task-001-parent ]
	[ "$(field TASK-002 pr_base)" = task-001-parent ]
	last_event pr_open | jq -e '.task == "TASK-002" and .details.onto == "task-001-parent"' >/dev/null
	# Its request shows its own change only, on top of the parent's gated
	# head (rebased onto the moved main), not the parent's commits.
	[ "$(pr_files 2)" = "$(printf 'added child.txt\ndeleted added.txt')" ]
	[ "$(git rev-parse "$(field TASK-002 pr_head)~2")" = "$parent_head" ]
	pr_field 2 body | grep -q "Stacked on \*\*TASK-001\*\*"
	# Approving it again updates it onto the same branch.
	run git burl approve TASK-002 --json
	assert_success
	jq -e '.pr.number == 2 and .pr.updated and .pr.onto == "task-001-parent" and .pr.stacked_on == "TASK-001"' <<<"$output" >/dev/null
	[ "$(pr_field 2 base.ref)" = task-001-parent ]

	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #1: open"
	assert_output_contains "TASK-002 pull request #2: open"
	[ "$(parent_tip)" = "$parent_head" ]

	# A human squash-merges the parent on the forge.
	gitea_merge 1 squash
	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #1: merged"
	assert_output_contains "TASK-002 pull request #2: retargeted"
	assert_output_contains "restacked TASK-002 onto origin/main"
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(bucket_of TASK-002)" = QA ]
	git fetch -q origin
	squash=$(git rev-parse origin/main)
	# The same request, now onto main, at the restacked head: the child's
	# own two commits on the squash commit.
	[ "$(pr_field 2 base.ref)" = main ]
	[ "$(pr_field 2 state)" = open ]
	[ "$(pr_field 2 merged)" = false ]
	head=$(field TASK-002 pr_head)
	[ "$(pr_field 2 head.sha)" = "$head" ]
	[ "$(git rev-parse "$head~2")" = "$squash" ]
	[ -z "$(field TASK-002 pr_base | sed 's/^null$//')" ]
	[ "$(field TASK-002 stack_base)" = "$squash" ]
	last_event pr_open | jq -e '.task == "TASK-002" and .details.retargeted_from == "task-001-parent" and .details.updated' >/dev/null
	[ "$(pr_files 2)" = "$(printf 'added child.txt\ndeleted added.txt')" ]
	[ "$(gitea_api GET "/repos/$GITEA_REPO/pulls?state=all" | jq length)" = 2 ]
	# The parent's branch went only after the retarget, and held nothing
	# but the parent's gated head until then.
	[ -z "$(parent_tip)" ]
	[ "$(pr_field 1 head.sha)" = "$parent_head" ]
	run git show "$squash:child.txt"
	assert_failure

	# The child's request merges into main: main holds exactly its change
	# on the parent's squash (the file the parent added stays deleted).
	gitea_merge 2 squash
	run git burl sync
	assert_success
	assert_output_contains "TASK-002 pull request #2: merged"
	[ "$(bucket_of TASK-002)" = DONE ]
	git fetch -q origin
	[ "$(git rev-parse origin/main~1)" = "$squash" ]
	[ "$(git diff --name-status origin/main~1 origin/main)" = "$(printf 'D\tadded.txt\nA\tchild.txt')" ]
	[ "$(git show origin/main:README.md)" = "$(printf '# demo\nparent line')" ]
	[ "$(git show origin/main:other.txt)" = "someone else's" ]
}

@test "stack through Gitea with pr_merge: auto: burl asks the merge of the parent's request only, keeps its branch until the child's request is retargeted, then merges the child's into main" {
	set_config pr_merge auto
	git burl trust --yes >/dev/null
	child_submitted
	# approve --all opens the parent's request first, then the child's
	# onto the parent's branch.
	run git burl approve --all
	assert_success
	assert_output_contains "opened pull request #1 for TASK-001"
	assert_output_contains "opened pull request #2 for TASK-002"
	parent_head=$(field TASK-001 pr_head)
	[ "$(pr_field 1 base.ref)" = main ]
	[ "$(pr_field 2 base.ref)" = task-001-parent ]

	# Both requests' checks pass (none are required): the parent's is
	# merged, the child's is not merged into the parent's branch, and the
	# parent's branch stays for it.
	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #1: open (checks: success); checks passed; asked gitea to merge it"
	[ "$(pr_field 1 merged)" = true ]
	[ "$(pr_field 2 merged)" = false ]
	[ "$(pr_field 2 state)" = open ]
	[ "$(pr_field 2 base.ref)" = task-001-parent ]
	[ "$(parent_tip)" = "$parent_head" ]

	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #1: merged"
	assert_output_contains "TASK-002 pull request #2: retargeted"
	[ "$(pr_field 2 base.ref)" = main ]
	[ "$(pr_field 2 merged)" = false ]
	[ -z "$(parent_tip)" ]

	run git burl sync
	assert_success
	assert_output_contains "TASK-002 pull request #2: open (checks: success); checks passed; asked gitea to merge it"
	[ "$(pr_field 2 merged)" = true ]
	[ "$(pr_field 2 base.ref)" = main ]
	run git burl sync
	assert_success
	assert_output_contains "TASK-002 pull request #2: merged"
	[ "$(bucket_of TASK-002)" = DONE ]
	git fetch -q origin
	# Rebase merges: the child's own two commits on top of the parent's.
	[ "$(git log --format=%s -4 origin/main | paste -sd,)" = "child adds its file,child deletes the parent's file,parent finishes the file,parent changes README" ]
	run git show origin/main:added.txt
	assert_failure
	[ "$(git show origin/main:child.txt)" = child ]
}

@test "stack through Gitea: a child still in DOING is restacked onto the remote's main when sync finds its parent squash-merged" {
	run git burl approve TASK-001
	assert_success
	CHILD_WT=$(claim_wt TASK-002)
	(cd "$CHILD_WT" && git rm -q added.txt && git commit -q -m "child deletes the parent's file")
	gitea_merge 1 squash
	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #1: merged"
	assert_output_contains "restacked TASK-002 onto origin/main"
	git fetch -q origin
	squash=$(git rev-parse origin/main)
	[ "$(bucket_of TASK-002)" = DOING ]
	[ "$(field TASK-002 stack_base)" = "$squash" ]
	[ "$(git -C "$CHILD_WT" rev-parse HEAD~1)" = "$squash" ]
	[ "$(git -C "$CHILD_WT" log --format=%s "$squash..HEAD")" = "child deletes the parent's file" ]
	[ ! -e "$CHILD_WT/added.txt" ]
	# The parent's branch had no request stacked on it: deleted with it.
	[ -z "$(parent_tip)" ]
}

@test "stack through Gitea: a retarget whose gates fail runs them once per head, not again on every sync" {
	# The build fails on a main that holds marker.txt, as the child's
	# retarget onto main will.
	set_config build_command "test ! -e marker.txt"
	run git burl approve TASK-001
	assert_success
	child_submitted
	run git burl approve TASK-002
	assert_success
	[ "$(pr_field 2 base.ref)" = task-001-parent ]
	gitea_merge 1 squash
	git fetch -q origin && git merge -q --ff-only origin/main
	commit_file marker.txt "marker" "main gains a marker"
	git push -q origin main
	fails() { all_events | jq -s '[.[] | select(.action == "approve" and .task == "TASK-002" and .details.result == "fail")] | length'; }
	run git burl sync
	assert_output_contains "TASK-001 pull request #1: merged"
	[ "$(fails)" = 1 ]
	[ "$(pr_field 2 base.ref)" = task-001-parent ]
	# The next syncs do not run the gates again on the same head.
	run git burl sync
	assert_output_contains "its gates failed on its head $(field TASK-002 submitted_sha | cut -c1-10)"
	run git burl sync
	[ "$(fails)" = 1 ]
	[ "$(bucket_of TASK-002)" = QA ]
	[ "$(pr_field 2 base.ref)" = task-001-parent ]
}
