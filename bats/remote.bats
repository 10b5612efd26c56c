#!/usr/bin/env bats
# Many machines, one remote (DESIGN §5): clones coordinate through pushes of
# the workflow branch, with workflow_auto_push on.

load helpers

# remote_setup TASKS: clone "a" initialises burl with auto-push and adds
# TASKS tasks; clones b, c, d attach. $R is the directory of the clones.
remote_setup() {
	new_repo
	R="$BATS_TEST_TMPDIR"
	mv "$REPO" "$R/a"
	REPO="$R/a"
	cd "$R/a" || return 1
	git burl init >/dev/null
	sed -i 's/^workflow_auto_push: false/workflow_auto_push: true/; s/^max_parallel: 3/max_parallel: 0/' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "auto-push on"
	git -C .burl push -q origin burl
	local i
	for ((i = 1; i <= $1; i++)); do
		git burl add "task $i" --affects "f$i.txt" >/dev/null
	done
	for c in b c d; do
		clone_repo "$R/$c"
		(cd "$R/$c" && git burl init >/dev/null)
	done
}

# origin_count BUCKET: task files in BUCKET on origin's workflow branch.
origin_count() {
	# -r: DONE keeps its tasks in month shards.
	git --git-dir="$ORIGIN" ls-tree -r --name-only "burl:.workflow/$1" | grep -c '\(^\|/\)TASK-' || true
}

claim_loop() {
	local clone=$1 out rc
	cd "$R/$clone" || exit 1
	: >"$R/$clone.ok"
	: >"$R/$clone.rc"
	while true; do
		rc=0
		out=$(BURL_ACTOR="$clone" git burl claim --json 2>>"$R/$clone.err") || rc=$?
		echo "$rc" >>"$R/$clone.rc"
		if [ "$rc" -eq 0 ]; then
			printf '%s\n' "$out" | grep -o '"id":"TASK-[0-9]*"' | cut -d'"' -f4 >>"$R/$clone.ok"
		elif [ "$rc" -eq 1 ]; then
			return 0
		fi
	done
}

@test "four clones claiming 40 tasks through one remote never claim a task twice (3 rounds)" {
	for round in 1 2 3; do
		cd / && rm -rf "${BATS_TEST_TMPDIR:?}"/*
		remote_setup 40
		pids=()
		for c in a b c d; do
			claim_loop "$c" &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p"; done
		# Exit codes are only 0 (claimed), 4 (lost a race) or 1 (nothing left).
		run sh -c "cat '$R'/?.rc | sort -u | tr '\n' ' '"
		[[ "$output" =~ ^(0 |1 |4 )+$ ]] || { echo "round $round: unexpected exit codes: $output"; cat "$R"/*.err; false; }
		# 40 distinct IDs were reported claimed, none twice.
		total=$(cat "$R"/?.ok | wc -l)
		distinct=$(cat "$R"/?.ok | sort -u | wc -l)
		[ "$total" -eq 40 ] || { echo "round $round: $total claims reported"; false; }
		[ "$distinct" -eq 40 ] || { echo "round $round: only $distinct distinct IDs"; false; }
		# Origin agrees: all 40 in DOING exactly once, none left in READY.
		[ "$(origin_count DOING)" -eq 40 ]
		[ "$(origin_count READY)" -eq 0 ]
		[ -z "$(git --git-dir="$ORIGIN" rev-list --merges burl)" ]
		# Every claimed task's branch and worktree exist in the clone that claimed it.
		for c in a b c d; do
			while read -r id; do
				n=${id#TASK-}
				run git -C "$R/$c" for-each-ref --format='%(refname:short)' "refs/heads/task-$n-*"
				[ -n "$output" ] || { echo "round $round: $c has no branch for $id"; false; }
				[ -d "$R/$c/.worktrees/$output" ]
			done <"$R/$c.ok"
		done
		# After a final pull every clone's workflow branch is origin's.
		for c in a b c d; do
			(cd "$R/$c" && git burl sync --pull >/dev/null)
			[ "$(git -C "$R/$c" rev-parse burl)" = "$(git --git-dir="$ORIGIN" rev-parse burl)" ]
		done
	done
}

@test "two clones adding at the same moment get distinct IDs on origin" {
	remote_setup 0
	pids=()
	for c in a b c d; do
		(cd "$R/$c" && for i in 1 2 3; do
			until git burl add "from $c $i" >/dev/null 2>>"$R/$c.err"; do sleep 0.1; done
		done) &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	[ "$(origin_count READY)" -eq 12 ]
	ids=$(git --git-dir="$ORIGIN" ls-tree --name-only burl:.workflow/READY | grep '^TASK-' | cut -d- -f1-2 | sort)
	[ "$(printf '%s\n' "$ids" | sort -u | wc -l)" -eq 12 ]
	[ "$(printf '%s\n' "$ids" | head -1)" = "TASK-001" ]
	[ "$(printf '%s\n' "$ids" | tail -1)" = "TASK-012" ]
}

@test "identical identity and dates on two clones still give exactly one winner per task" {
	remote_setup 6
	export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
	export BURL_ACTOR="same@host"
	for n in 1 2 3 4 5 6; do
		(cd "$R/a" && rc=0 && { git burl claim "TASK-00$n" >/dev/null 2>&1 || rc=$?; } && echo "$rc" >"$R/a.$n") &
		pa=$!
		(cd "$R/b" && rc=0 && { git burl claim "TASK-00$n" >/dev/null 2>&1 || rc=$?; } && echo "$rc" >"$R/b.$n") &
		pb=$!
		wait "$pa"
		wait "$pb"
		codes="$(cat "$R/a.$n") $(cat "$R/b.$n")"
		[[ "$codes" = "0 1" || "$codes" = "1 0" || "$codes" = "0 4" || "$codes" = "4 0" ]] || { echo "TASK-00$n: exit codes $codes"; false; }
	done
	[ "$(origin_count DOING)" -eq 6 ]
	# Each task was claimed in exactly one commit on origin.
	run git --git-dir="$ORIGIN" log --format=%s burl
	[ "$(printf '%s\n' "$output" | grep -c '^burl: claim ')" -eq 6 ]
}

@test "a push that loses a race at the remote is redone and the claim lands once" {
	remote_setup 2
	# Between our fetch and our push, "another machine" moves the workflow
	# branch on origin (the hook commits on top of it once), so our push
	# fails to update the ref exactly as a lost race does.
	cat >"$ORIGIN/hooks/pre-receive" <<'HOOK'
#!/bin/sh
if [ ! -e "$GIT_DIR/raced-once" ]; then
	touch "$GIT_DIR/raced-once"
	unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
	c=$(git commit-tree "refs/heads/burl^{tree}" -p refs/heads/burl -m "burl: another machine")
	git update-ref refs/heads/burl "$c"
fi
HOOK
	chmod +x "$ORIGIN/hooks/pre-receive"
	cd "$R/b"
	run git burl claim TASK-001
	assert_success
	[ -e "$ORIGIN/raced-once" ]
	[ "$(origin_count DOING)" -eq 1 ]
	run git --git-dir="$ORIGIN" log --format=%s burl
	[ "$(printf '%s\n' "$output" | grep -c '^burl: claim TASK-001')" -eq 1 ]
	# The redo was built on the other machine's commit: nothing of it is lost.
	printf '%s\n' "$output" | grep -qx "burl: another machine"
	[ "$(git log --format=%s burl | grep -c '^burl: claim TASK-001')" -eq 1 ]
	[ "$(all_events . | grep -c '"action":"claim"')" -eq 1 ]
}

@test "a push the remote refuses on purpose exits 3 at once and leaves nothing behind" {
	remote_setup 1
	printf '#!/bin/sh\necho "policy: no pushes today" >&2\nexit 1\n' >"$ORIGIN/hooks/pre-receive"
	chmod +x "$ORIGIN/hooks/pre-receive"
	cd "$R/b"
	before=$(git rev-parse burl)
	run git burl claim TASK-001
	assert_failure 3
	assert_output_contains "pre-receive hook declined"
	[ "$(git rev-parse burl)" = "$before" ]
	[ -e .burl/.workflow/READY/TASK-001-task-1.md ]
	[ -z "$(git for-each-ref 'refs/heads/task-001-*')" ]
	[ ! -d .worktrees/task-001-task-1 ]
	[ -z "$(git -C .burl status --porcelain)" ]
}

@test "a claim that loses to another machine undoes its branch and worktree and exits 4" {
	remote_setup 1
	cd "$R/a"
	git burl claim TASK-001 >/dev/null
	cd "$R/b"
	# b has not fetched since a's claim: it still sees TASK-001 in READY locally.
	[ -e .burl/.workflow/READY/TASK-001-task-1.md ]
	run git burl claim TASK-001
	[ "$status" -eq 1 ] || [ "$status" -eq 4 ]
	assert_output_contains "TASK-001"
	[ -z "$(git for-each-ref 'refs/heads/task-001-*')" ]
	[ ! -d .worktrees/task-001-task-1 ]
	[ ! -e .burl/.workflow/locks/TASK-001.lock ]
}

@test "two clones approving different tasks with push_main_on_approve keep main linear" {
	remote_setup 2
	cd "$R/a"
	sed -i 's/^push_main_on_approve: false/push_main_on_approve: true/' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "push main on approve"
	git -C .burl push -q origin burl
	(cd "$R/b" && git burl sync --pull >/dev/null)
	for pair in "a 1" "b 2"; do
		set -- $pair
		cd "$R/$1"
		wt=$(git burl claim "TASK-00$2" | tail -1)
		(cd "$wt" && commit_file "f$2.txt" "work $2" && git burl submit >/dev/null)
	done
	(cd "$R/a" && rc=0 && { git burl approve TASK-001 >"$R/a.out" 2>&1 || rc=$?; } && echo "$rc" >"$R/a.rc") &
	pa=$!
	(cd "$R/b" && rc=0 && { git burl approve TASK-002 >"$R/b.out" 2>&1 || rc=$?; } && echo "$rc" >"$R/b.rc") &
	pb=$!
	wait "$pa"
	wait "$pb"
	for c in a b; do
		rc=$(cat "$R/$c.rc")
		if [ "$rc" -ne 0 ]; then
			[ "$rc" -eq 3 ] || [ "$rc" -eq 4 ] || { echo "$c exited $rc"; cat "$R/$c.out"; false; }
			n=1; [ "$c" = b ] && n=2
			(cd "$R/$c" && git burl approve "TASK-00$n") || { cat "$R/$c.out"; false; }
		fi
	done
	[ "$(origin_count DONE)" -eq 2 ]
	[ -z "$(git --git-dir="$ORIGIN" rev-list --merges main)" ]
	git --git-dir="$ORIGIN" show main:f1.txt | grep -q "work 1"
	git --git-dir="$ORIGIN" show main:f2.txt | grep -q "work 2"
}

@test "status shows when the local workflow branch is ahead of or behind the remote" {
	remote_setup 1
	cd "$R/b"
	(cd "$R/a" && git burl add "more" >/dev/null)
	git fetch -q origin
	run git burl status
	assert_success
	assert_output_contains "behind"
	run git burl status --json
	assert_output_contains '"behind":1'
}

@test "doctor in one clone names a task claimed in another as living there, not as a lost branch" {
	remote_setup 2
	cd "$R/b"
	git burl claim TASK-001 >/dev/null
	run git burl doctor
	assert_success
	refute_output_contains "another clone"
	cd "$R/a"
	git burl claim TASK-002 >/dev/null
	run git burl doctor
	assert_success
	assert_output_contains "TASK-001 is claimed in another clone, $(hostname):$(cd "$R/b" && pwd -P)"
	run git burl doctor --json
	[ "$(jq -r '.elsewhere[0].task' <<<"$output")" = TASK-001 ]
	[ "$(jq '.findings | length' <<<"$output")" = 0 ]
	# A branch lost in the clone that claimed it is still a problem there.
	git worktree remove --force "$(git burl worktree TASK-002)"
	git branch -D -q task-002-task-2
	run git burl doctor
	assert_failure 2
	assert_output_contains "missing_branch"
}

@test "a workflow branch pushed with a malformed tree (a '..' entry) is refused by the fetch: the local workflow branch does not move" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	git burl sync --push >/dev/null
	before=$(git rev-parse burl)
	# Someone with push access writes a commit git would never make.
	good=$(git --git-dir="$ORIGIN" rev-parse burl)
	sub=$(git --git-dir="$ORIGIN" rev-parse "burl:.workflow")
	tree=$( (git --git-dir="$ORIGIN" ls-tree burl; printf '040000 tree %s\t..\n' "$sub") | git --git-dir="$ORIGIN" mktree)
	bad=$(git --git-dir="$ORIGIN" commit-tree -p "$good" -m "hostile" "$tree")
	git --git-dir="$ORIGIN" update-ref refs/heads/burl "$bad"
	run git burl sync
	assert_failure 3
	assert_output_contains "hasDotdot"
	[ "$(git rev-parse burl)" = "$before" ]
	! git cat-file -e "$bad" 2>/dev/null || false
}
