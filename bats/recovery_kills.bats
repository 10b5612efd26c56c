#!/usr/bin/env bats
# What kill -9 leaves that V1's doctor did not see or could not repair
# (issue 16): each test builds the state a real kill leaves, then checks
# that doctor names it, repair fixes it, and the next command works.

load helpers
load lifecycle

WORK="work on TASK-001"

# doing: TASK-001 claimed, with one commit on its branch.
doing() {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/feature/**' >/dev/null
	git burl claim TASK-001 >/dev/null
	(cd .worktrees/task-001-feature && commit_file src/feature/a.go 'package feature' "$WORK")
}

# aged PATH...: what a killed process left a while ago.
aged() { touch -h -d '2 minutes ago' "$@"; }

kinds() { git burl doctor --json | jq -r '.findings[].kind' | sort -u | tr '\n' ' '; }

@test "a deleted task file is restored by repair, never committed as lost (uncommitted and committed deletions)" {
	doing
	git burl submit TASK-001 >/dev/null
	git burl approve TASK-001 >/dev/null
	rm "$(task_file TASK-001)"
	run git burl doctor --json
	[ "$status" -eq 2 ]
	[[ "$output" == *'"kind":"lost_task"'* ]]
	run git burl doctor --repair --force
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	git burl show TASK-001 | grep -q "Approved"
	run git burl doctor
	assert_success
	# Deleted and committed by hand: the event log still knows the task.
	git -C .burl rm -q "$(git -C .burl ls-files '.workflow/DONE/TASK-001-*')"
	git -C .burl commit -q -m "oops"
	run git burl doctor --json
	[ "$status" -eq 2 ]
	[[ "$output" == *'"kind":"lost_task"'* ]]
	git burl doctor --repair --force >/dev/null
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(git burl show TASK-001 --json | jq -r .task.id)" = TASK-001 ]
	run git burl doctor
	assert_success
}

@test "a move no event records is reported against the event log, and recorded by repair when a verb makes it" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	run env BURL_CRASH_AFTER=claim:move git burl claim TASK-001
	[ "$status" -eq 137 ]
	# A human commits what the killed claim left, event log and all.
	git -C .burl add -A .workflow/READY .workflow/DOING
	git -C .burl commit -q -m "commit the claim by hand"
	git burl lock list --json | jq -r '.locks[].name' | sort -r | while read -r n; do git burl lock clear "$n" --force >/dev/null; done
	run git burl doctor --json
	[ "$status" -eq 2 ]
	[[ "$output" == *'"kind":"event_mismatch"'* ]]
	[[ "$output" == *"event log's last move put it in READY"* ]]
	git burl doctor --repair --force >/dev/null
	run git burl doctor
	assert_success
	git burl log --task TASK-001 --json | jq -e 'select(.action == "repair" and .details.to == "DOING")' >/dev/null
}

@test "a stale git index.lock is reported and removed by repair; transitions work again" {
	doing
	lockf=$(git rev-parse --git-common-dir)/worktrees/-burl/index.lock
	[ -d "$(dirname "$lockf")" ]
	: >"$lockf"
	aged "$lockf"
	run git burl doctor --json
	[ "$status" -eq 2 ]
	[[ "$output" == *'"kind":"stale_git_lock"'* ]]
	[[ "$output" == *"index.lock"* ]]
	run git burl doctor --repair --force
	assert_success
	[ ! -e "$lockf" ]
	run git burl submit TASK-001
	assert_success
	run git burl doctor
	assert_success
}

@test "a fresh git lock (git may be working) is not reported" {
	doing
	: >"$(git rev-parse --git-common-dir)/index.lock"
	run git burl doctor
	assert_success
}

@test "a lock whose pid now names another process (pid reuse) is dead" {
	doing
	mkdir -p .burl/.workflow/locks
	# Our own shell's pid: alive, but it started long after "its" lock.
	printf '{"owner":"w","host":"%s","pid":%d,"created_at":"%s","action":"claim","start_time":1}\n' \
		"$(hostname)" $$ "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >.burl/.workflow/locks/TASK-001.lock
	run git burl doctor --json
	[ "$status" -eq 2 ]
	[[ "$output" == *'"kind":"dead_lock"'* ]]
	git burl doctor --repair --force >/dev/null
	run git burl submit TASK-001
	assert_success
	# A lock we take records what identifies us beside the pinned keys.
	run env BURL_CRASH_AFTER=approve:rebase git burl approve TASK-001
	[ "$status" -eq 137 ]
	jq -e 'has("owner") and has("host") and has("pid") and has("created_at") and has("action") and (.start_time > 0) and (.boot_id | length > 0)' .burl/.workflow/locks/TASK-001.lock
}

@test "a worktree whose git worktree add was killed is reported, and claim rebuilds it instead of handing it out" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	run env BURL_CRASH_AFTER=claim:branch git burl claim TASK-001
	[ "$status" -eq 137 ]
	# What a kill mid-checkout leaves: still locked "initializing", no
	# index yet, files missing.
	meta=$(git rev-parse --git-common-dir)/worktrees/task-001-feature
	printf 'initializing' >"$meta/locked"
	rm -f "$meta/index" .worktrees/task-001-feature/README.md
	aged "$meta/locked"
	git burl lock list --json | jq -r '.locks[].name' | sort -r | while read -r n; do git burl lock clear "$n" --force >/dev/null; done
	run git burl doctor --json
	[ "$status" -eq 2 ]
	[[ "$output" == *'"kind":"partial_worktree"'* ]]
	run git burl claim TASK-001
	assert_success
	[ -f .worktrees/task-001-feature/README.md ]
	[ -z "$(git -C .worktrees/task-001-feature status --porcelain)" ]
	[ "$(git -C .worktrees/task-001-feature symbolic-ref --short HEAD)" = task-001-feature ]
	run git burl doctor
	assert_success
}

@test "repair removes an unfinished worktree and recreates the DOING task's worktree" {
	doing
	meta=$(git rev-parse --git-common-dir)/worktrees/task-001-feature
	printf 'initializing' >"$meta/locked"
	aged "$meta/locked"
	run git burl doctor --json
	[[ "$output" == *'"kind":"partial_worktree"'* ]]
	git burl doctor --repair --force >/dev/null
	[ ! -e "$meta/locked" ]
	git -C .worktrees/task-001-feature log --format=%s | grep -qx "$WORK"
	run git burl doctor
	assert_success
}

# rebase_left: the state an approve killed mid-rebase leaves in the task
# worktree: detached HEAD, .git/worktrees/<name>/rebase-merge.
rebase_left() {
	doing
	git burl submit TASK-001 >/dev/null
	commit_file other.txt 'other' "other work on main"
	(cd .worktrees/task-001-feature && git rebase -q -x false main 2>/dev/null) || true
	rb=$(git -C .worktrees/task-001-feature rev-parse --path-format=absolute --git-path rebase-merge)
	[ -d "$rb" ]
	aged "$rb"
}

@test "a rebase left by a killed approve: doctor sees it (no git switch advice), approve aborts it and approves" {
	rebase_left
	run git burl doctor --json
	[ "$status" -eq 2 ]
	[[ "$output" == *'"kind":"rebase_in_progress"'* ]]
	[[ "$output" != *'"kind":"worktree_branch"'* ]]
	run git burl approve TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(git burl show TASK-001 --json | jq -r '.task.qa_attempts // 0')" -eq 0 ]
	git log main --format=%s | grep -qx "$WORK"
}

@test "a rebase left by a killed approve: repair aborts it and restores the branch" {
	rebase_left
	tip=$(git rev-parse task-001-feature)
	git burl doctor --repair --force >/dev/null
	[ ! -d "$rb" ]
	[ "$(git -C .worktrees/task-001-feature symbolic-ref --short HEAD)" = task-001-feature ]
	[ "$(git rev-parse task-001-feature)" = "$tip" ]
	run git burl doctor
	assert_success
}

@test "a temp file a killed atomic write left is burl's, and repair deletes it" {
	doing
	tmp=$(task_file TASK-001)2065969431
	cp "$(task_file TASK-001)" "$tmp"
	aged "$tmp"
	run git burl doctor --json
	[ "$status" -eq 2 ]
	[[ "$output" == *'"kind":"temp_file"'* ]]
	[[ "$output" != *'"kind":"unexpected_change"'* ]]
	git burl doctor --repair --force >/dev/null
	[ ! -e "$tmp" ]
	run git burl doctor
	assert_success
}
