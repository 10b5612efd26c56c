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
