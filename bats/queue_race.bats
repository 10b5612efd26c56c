#!/usr/bin/env bats
# approve --all on two machines at once (DESIGN §11, §5): with
# workflow_auto_push the remote's compare-and-swap decides, and each task
# lands exactly once.

load helpers
load lifecycle

@test "approve --all on two clones at once lands each task exactly once, main linear (3 rounds)" {
	for round in 1 2 3; do
		cd / && rm -rf "${BATS_TEST_TMPDIR:?}"/*
		new_repo
		R="$BATS_TEST_TMPDIR"
		mv "$REPO" "$R/a"
		REPO="$R/a"
		cd "$R/a"
		git burl init >/dev/null
		sed -i 's/^workflow_auto_push: false/workflow_auto_push: true/; s/^max_parallel: 3/max_parallel: 0/;
			s/^push_main_on_approve: false/push_main_on_approve: true/;
			s/^push_task_branch_on_submit: false/push_task_branch_on_submit: true/;
			s/^queue_batch: 4/queue_batch: 2/' .burl/.workflow/config.yaml
		git -C .burl commit -q -am "auto-push, push main and task branches"
		git -C .burl push -q origin burl
		for n in 1 2 3 4 5 6; do
			git burl add "task $n" --affects "f$n.txt" >/dev/null
			submitted "TASK-00$n" "f$n.txt" "work $n" >/dev/null
		done
		clone_repo "$R/b"
		(cd "$R/b" && git burl init >/dev/null)
		# b has the worktrees already, so both queues start at once.
		for n in 1 2 3 4 5 6; do (cd "$R/b" && git burl worktree --ensure "TASK-00$n" >/dev/null 2>&1); done
		pids=()
		for c in a b; do
			(cd "$R/$c" && rc=0 && { BURL_ACTOR="$c" git burl approve --all --json >"$R/$c.out" 2>"$R/$c.err" || rc=$?; } && echo "$rc" >"$R/$c.rc") &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p"; done
		for c in a b; do
			rc=$(cat "$R/$c.rc")
			[ "$rc" -eq 0 ] || { echo "round $round: $c exited $rc"; cat "$R/$c.out" "$R/$c.err"; false; }
		done
		# Every task is DONE on origin, once; the two clones' approved lists
		# split the six tasks between them with no task in both.
		[ "$(git --git-dir="$ORIGIN" ls-tree -r --name-only burl:.workflow/DONE | grep -c '/TASK-')" -eq 6 ]
		[ "$(git --git-dir="$ORIGIN" ls-tree --name-only burl:.workflow/QA | grep -c '^TASK-' || true)" -eq 0 ]
		both=$(jq -r '.approved[]' "$R/a.out" "$R/b.out" | sort)
		[ "$(printf '%s\n' "$both" | wc -l)" -eq 6 ] || { echo "round $round: approved lists: $both"; false; }
		[ "$(printf '%s\n' "$both" | sort -u | wc -l)" -eq 6 ]
		# Main has each task's commit exactly once, and no merge.
		for n in 1 2 3 4 5 6; do
			[ "$(git --git-dir="$ORIGIN" log --format=%s main | grep -cx "edit f$n.txt")" -eq 1 ]
		done
		[ -z "$(git --git-dir="$ORIGIN" rev-list --merges main)" ]
		# One approve event per task on origin's log.
		run sh -c "git --git-dir='$ORIGIN' log --format=%s burl | grep -c '^burl: approve '"
		[ "$output" -eq 6 ]
	done
}

@test "push_main_on_approve: a queue whose push of main loses to another clone's leaves local main off its unpushed commit, stages the task again on the new main and lands it; nothing of either side is lost" {
	new_burl_repo
	set_config push_main_on_approve true
	B="$BATS_TEST_TMPDIR/b"
	clone_repo "$B"
	# The build, the first time only, has another clone push to main: the
	# queue's push of main then finds it moved since its fetch.
	cat >"$BATS_TEST_TMPDIR/race.sh" <<SH
#!/bin/sh
echo built >>"$BATS_TEST_TMPDIR/builds"
[ -e "$BATS_TEST_TMPDIR/raced" ] && exit 0
touch "$BATS_TEST_TMPDIR/raced"
cd "$B" && echo theirs >theirs.txt && git add theirs.txt && git commit -q -m "theirs, pushed meanwhile" && git push -q origin HEAD:main
SH
	chmod +x "$BATS_TEST_TMPDIR/race.sh"
	# The build stands for another clone at work: burl's gate box would keep
	# it from that clone and the test's files, so it runs unconfined.
	printf 'sandbox: none\n' >>"$REPO/.burl/.workflow/config.yaml"
	set_config build_command "\"$BATS_TEST_TMPDIR/race.sh\""
	git burl add "Mine" --affects f1.txt >/dev/null
	wt=$(submitted TASK-001 f1.txt mine)
	sha=$(field TASK-001 submitted_sha)
	before=$(git rev-parse main)
	run git burl approve --all
	assert_success
	[ -e "$BATS_TEST_TMPDIR/raced" ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/builds")" = 2 ]
	[ "$(bucket_of TASK-001)" = DONE ]
	# Both commits are on origin's main, the other clone's first; local
	# main is origin's, linear, with no rebased copy left behind.
	[ "$(git --git-dir="$ORIGIN" log --format=%s main | head -2 | paste -sd,)" = "edit f1.txt,theirs, pushed meanwhile" ]
	[ "$(git rev-parse main)" = "$(git --git-dir="$ORIGIN" rev-parse main)" ]
	[ "$(git rev-list --count "$before..main")" = 2 ]
	[ -z "$(git rev-list --merges main)" ]
	git --git-dir="$ORIGIN" cat-file -e "$sha^{commit}" 2>/dev/null || git cat-file -e "$sha^{commit}"
}

@test "push_main_on_approve: when every try of the queue's push of main loses, local main goes back to where it was and the task stays in QA with its branch as submitted" {
	new_burl_repo
	set_config push_main_on_approve true
	B="$BATS_TEST_TMPDIR/b"
	clone_repo "$B"
	# Every build has the other clone push to main first.
	cat >"$BATS_TEST_TMPDIR/race.sh" <<SH
#!/bin/sh
cd "$B" && git pull -q --ff-only origin main && date +%s%N >>theirs.txt && git add theirs.txt && git commit -q -m "theirs, pushed meanwhile" && git push -q origin HEAD:main
SH
	chmod +x "$BATS_TEST_TMPDIR/race.sh"
	# The build stands for another clone at work: burl's gate box would keep
	# it from that clone and the test's files, so it runs unconfined.
	printf 'sandbox: none\n' >>"$REPO/.burl/.workflow/config.yaml"
	set_config build_command "\"$BATS_TEST_TMPDIR/race.sh\""
	git burl add "Mine" --affects f1.txt >/dev/null
	wt=$(submitted TASK-001 f1.txt mine)
	sha=$(field TASK-001 submitted_sha)
	run git burl approve --all
	assert_failure
	assert_output_contains "moved on from"
	refute_output_contains "hint:"
	[ "$(bucket_of TASK-001)" = QA ]
	# Local main holds no commit of the task: none reached origin.
	! git log --format=%s main | grep -qx "edit f1.txt" || false
	git merge-base --is-ancestor main "$(git --git-dir="$ORIGIN" rev-parse main)" 2>/dev/null ||
		git --git-dir="$ORIGIN" merge-base --is-ancestor "$(git rev-parse main)" main
	[ "$(git rev-parse task-001-mine)" = "$sha" ]
	[ "$(git -C "$wt" rev-parse HEAD)" = "$sha" ]
	[ "$(git --git-dir="$ORIGIN" log --format=%s main | grep -c "theirs, pushed meanwhile")" -ge 2 ]
}
