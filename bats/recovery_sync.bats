#!/usr/bin/env bats
# Pause here, resume elsewhere (PRD 11.7): git burl sync pushes and pulls
# the workflow branch and the DOING/QA task branches; push_task_branch_on_
# submit publishes a branch as it is submitted.

load helpers

@test "pause in clone A, resume in a fresh clone B: init attaches, worktree --ensure recreates, and the task is finished there" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git burl claim TASK-001 >/dev/null
	wt=.worktrees/task-001-feature
	(cd $wt && commit_file src/a.go 'package src' "first half")
	run git burl sync
	assert_success
	assert_output_contains "Pushed to origin: burl, task-001-feature"
	[ "$(git ls-remote origin refs/heads/burl | cut -f1)" = "$(git rev-parse burl)" ]
	[ "$(git ls-remote origin refs/heads/task-001-feature | cut -f1)" = "$(git rev-parse task-001-feature)" ]
	[ "$(git burl log --action sync --json | jq -r '.events[-1].details.branches | join(" ")')" = "burl task-001-feature" ]
	run git burl sync
	assert_success
	assert_output_contains "Nothing to push"

	B="$BATS_TEST_TMPDIR/B"
	clone_repo "$B"
	cd "$B"
	run git burl init
	assert_success
	assert_output_contains "from the remote"
	[ "$(bucket_of_in "$B" TASK-001)" = DOING ]
	run git burl doctor --json
	assert_failure 2
	[ "$(jq -r '.findings[0].kind' <<<"$output")" = missing_branch ]
	run git burl sync --pull
	assert_success
	assert_output_contains "task-001-feature: created"
	assert_output_contains "git burl worktree --ensure TASK-001"
	run git burl worktree --ensure TASK-001
	assert_success
	[ "$output" = "$B/$wt" ]
	[ "$(git burl worktree TASK-001)" = "$B/$wt" ]
	[ "$(git burl show TASK-001 --json | jq -r .task.worktree)" = "$wt" ]
	[ "$(git -C $wt log -1 --format=%s)" = "first half" ]

	# A goes on a little before stopping for good; B fast-forwards to it.
	(cd "$REPO/$wt" && commit_file src/b.go 'package src' "second half")
	(cd "$REPO" && git burl sync --push >/dev/null)
	run git burl sync --pull
	assert_success
	assert_output_contains "task-001-feature: fast-forwarded"
	[ "$(git -C $wt log -1 --format=%s)" = "second half" ]
	[ -f $wt/src/b.go ]

	cd $wt
	run git burl submit
	assert_success
	run git burl validate TASK-001
	assert_success
	run git burl approve TASK-001
	assert_success
	cd "$B"
	[ "$(bucket_of_in "$B" TASK-001)" = DONE ]
	[ "$(git log main --format=%s | head -n 2 | tr '\n' ' ')" = "second half first half " ]
	run git burl sync
	assert_success
	cd "$REPO"
	run git burl sync --pull
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	[ -z "$(git rev-list --merges burl)" ]
}

# bucket_of_in DIR ID: bucket_of for another clone.
bucket_of_in() { REPO="$1" bucket_of "$2"; }

@test "sync --pull replays local workflow commits on top when the remote moved too" {
	new_burl_repo
	git burl add "One" >/dev/null
	git burl sync >/dev/null
	B="$BATS_TEST_TMPDIR/B"
	clone_repo "$B"
	(cd "$B" && git burl init >/dev/null)
	git burl add "Two" >/dev/null
	git burl sync --push >/dev/null
	cd "$B"
	git burl claim TASK-001 >/dev/null

	run git burl sync
	assert_success
	[ "$(bucket_of_in "$B" TASK-001)" = DOING ]
	[ "$(bucket_of_in "$B" TASK-002)" = READY ]
	[ "$(git rev-parse burl)" = "$(git --git-dir="$ORIGIN" rev-parse burl)" ]
	cd "$REPO"
	git burl sync --pull >/dev/null
	[ "$(bucket_of TASK-001)" = DOING ]
	[ "$(bucket_of TASK-002)" = READY ]
	[ -z "$(git rev-list --merges burl)" ]
	# Both clones' events survive the replay (the log merges by union).
	[ "$(git burl log --json | jq '[.events[] | select(.action == "add")] | length')" -eq 2 ]
	[ "$(git burl log --json | jq '[.events[] | select(.action == "claim")] | length')" -eq 1 ]
}

@test "sync --pull refuses (exit 3) when local workflow commits conflict with the remote's, and changes nothing" {
	new_burl_repo
	git burl sync >/dev/null
	B="$BATS_TEST_TMPDIR/B"
	clone_repo "$B"
	(cd "$B" && git burl init >/dev/null)
	sed -i 's/^qa_max_attempts: 3/qa_max_attempts: 5/' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "five attempts"
	git burl sync --push >/dev/null
	cd "$B"
	sed -i 's/^qa_max_attempts: 3/qa_max_attempts: 7/' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "seven attempts"
	before=$(git rev-parse burl)

	run git burl sync --pull
	assert_failure 3
	assert_output_contains "cannot fast-forward"
	assert_output_contains "${before:0:10}"
	assert_output_contains "$(git rev-parse origin/burl | cut -c1-10)"
	[ "$(git rev-parse burl)" = "$before" ]
	[ -z "$(git -C .burl status --porcelain)" ]
	[ ! -d "$(git -C .burl rev-parse --git-path rebase-merge)" ]
	run git burl sync --push
	assert_failure 3
	[ "$(git rev-parse burl)" = "$before" ]
}

@test "push_task_branch_on_submit pushes the branch when it is submitted" {
	new_burl_repo
	set_config push_task_branch_on_submit true
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git burl claim TASK-001 >/dev/null
	(cd .worktrees/task-001-feature && commit_file src/a.go 'package src')
	run git burl submit TASK-001 --json
	assert_success
	[ "$(jq -r .pushed <<<"$output")" = true ]
	[ "$(git ls-remote origin refs/heads/task-001-feature | cut -f1)" = "$(git burl show TASK-001 --json | jq -r .task.submitted_sha)" ]
}

@test "approve deletes the task branch push_task_branch_on_submit published, unless the remote moved it" {
	new_burl_repo
	set_config push_task_branch_on_submit true
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git burl add "Other" --affects-glob 'lib/**' >/dev/null
	git burl add "Docs" --affects-glob 'doc/**' >/dev/null
	for pair in TASK-001:src TASK-002:lib TASK-003:doc; do
		wt=$(git burl claim "${pair%%:*}" | tail -n 1)
		(cd "$wt" && mkdir -p "${pair#*:}" && commit_file "${pair#*:}/a.go" 'package a')
		git burl submit "${pair%%:*}" >/dev/null
	done
	for b in task-001-feature task-002-other task-003-docs; do
		[ -n "$(git ls-remote origin "refs/heads/$b")" ]
	done
	# Someone pushes more work to TASK-002's branch on the remote: it must survive.
	clone_repo "$BATS_TEST_TMPDIR/elsewhere"
	(cd "$BATS_TEST_TMPDIR/elsewhere" && git switch -q task-002-other && commit_file lib/b.go 'package a' && git push -q origin task-002-other)

	run git burl approve TASK-001
	assert_success
	[ -z "$(git ls-remote origin refs/heads/task-001-feature)" ]
	[ -z "$(git branch --list task-001-feature)" ]
	# Approved after main moved: rebased, so main holds copies of the
	# branch's commits, not the commits the remote has; still deleted.
	run git burl approve TASK-003
	assert_success
	assert_output_contains "drift: 1 commit(s)"
	[ -z "$(git ls-remote origin refs/heads/task-003-docs)" ]
	run git burl approve TASK-002
	assert_success
	assert_output_contains "could not delete task-002-other from origin"
	[ -n "$(git ls-remote origin refs/heads/task-002-other)" ]
}

@test "a published task branch someone already deleted on the remote is gone, not an error: approve lands the task and says so in burl's words, no raw git error" {
	new_burl_repo
	set_config push_task_branch_on_submit true
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git burl claim TASK-001 >/dev/null
	(cd .worktrees/task-001-feature && commit_file src/a.go 'package src')
	git burl submit TASK-001 >/dev/null
	[ -n "$(git ls-remote origin refs/heads/task-001-feature)" ]
	# The forge (or a colleague) deletes it first.
	clone_repo "$BATS_TEST_TMPDIR/elsewhere"
	git -C "$BATS_TEST_TMPDIR/elsewhere" push -q origin --delete task-001-feature

	run git burl approve TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	assert_output_contains "task-001-feature was deleted from origin already"
	refute_output_contains "stale info"
	refute_output_contains "could not delete"
	refute_output_contains "warning"
	# The stale remote-tracking ref went with it.
	! git rev-parse -q --verify refs/remotes/origin/task-001-feature
}

@test "QA on another machine: validate and approve there recreate the task's worktree from its pushed branch" {
	new_burl_repo
	set_config push_task_branch_on_submit true
	set_config build_command '"test -f src/a.go"'
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git burl claim TASK-001 >/dev/null
	(cd .worktrees/task-001-feature && commit_file src/a.go 'package src')
	git burl submit TASK-001 >/dev/null
	git burl sync --push >/dev/null

	QA="$BATS_TEST_TMPDIR/qa"
	clone_repo "$QA"
	cd "$QA"
	git burl init >/dev/null
	# Another clone is another repository to the trust store: its user
	# trusts the build_command they pulled.
	git burl trust --yes >/dev/null
	run git burl validate TASK-001
	assert_success
	assert_output_contains "TASK-001 had no worktree on this machine: recreated .worktrees/task-001-feature from branch task-001-feature"
	assert_output_contains "build pass"
	run git burl approve TASK-001
	assert_success
	refute_output_contains "had no worktree"
	[ "$(bucket_of_in "$QA" TASK-001)" = DONE ]
	[ "$(git log -1 --format=%s main)" = "edit src/a.go" ]
}

@test "a task rejected on one machine and claimed on another continues from its branch on the remote" {
	new_burl_repo
	set_config push_task_branch_on_submit true
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git burl add "Other" --affects-glob 'lib/**' >/dev/null
	git burl claim TASK-001 >/dev/null
	(cd .worktrees/task-001-feature && commit_file src/a.go 'package src' "first attempt")
	git burl submit TASK-001 >/dev/null
	git burl reject TASK-001 --reason "needs tests" >/dev/null
	# TASK-002 is claimed from a main that moved after B was cloned.
	B="$BATS_TEST_TMPDIR/B"
	clone_repo "$B"
	commit_file README "newer main" && git push -q origin main
	git burl claim TASK-002 >/dev/null
	git burl release TASK-002 >/dev/null
	git burl sync --push >/dev/null

	cd "$B"
	git burl init >/dev/null
	run git burl claim TASK-001
	assert_success
	assert_output_contains "reusing branch task-001-feature"
	[ "$(git -C .worktrees/task-001-feature log -1 --format=%s)" = "first attempt" ]
	# Not on the remote: a new branch at its base_sha, a commit B had to fetch.
	[ -z "$(git ls-remote origin refs/heads/task-002-other)" ]
	run git burl claim TASK-002
	assert_success
	assert_output_contains "new branch task-002-other, base $(git -C "$REPO" rev-parse --short=10 main)"
	[ "$(git -C .worktrees/task-002-other rev-parse HEAD)" = "$(git -C "$REPO" rev-parse main)" ]
}
