#!/usr/bin/env bats
# What kill -9 at any moment leaves behind (issue 16): doctor names each
# leftover, doctor --repair --force fixes it, and nothing is lost.

load helpers
load lifecycle

@test "a git index.lock left by a killed git commit: doctor names it, repair removes it, transitions work again" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	gitdir=$(git -C .burl rev-parse --absolute-git-dir)
	: >"$gitdir/index.lock"
	run git burl doctor --json
	assert_failure 2
	jq -e --arg p "${gitdir#"$REPO/"}/index.lock" '.findings[] | select(.kind == "stale_git_lock" and .path == $p and .repairable)' <<<"$output" >/dev/null
	run git burl doctor
	assert_failure 2
	assert_output_contains "no git process is running"
	run git burl doctor --repair --force
	assert_success
	[ ! -e "$gitdir/index.lock" ]
	run git burl claim TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = DOING ]
}

@test "a git lock held by a running git is not called stale" {
	new_burl_repo
	gitdir=$(git -C .burl rev-parse --absolute-git-dir)
	: >"$gitdir/index.lock"
	# A git at work in the repository (here one waiting on its input) may
	# be the lock's holder: doctor must not call the lock stale then.
	(cd .burl && exec git cat-file --batch < <(sleep 30)) &
	pid=$!
	for _ in $(seq 50); do [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = git ] && break; sleep 0.1; done
	run git burl doctor --json
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	[ "$(jq '[.findings[] | select(.kind == "stale_git_lock")] | length' <<<"$output")" = 0 ]
}

@test "a lock whose pid now belongs to another process is dead, not held forever" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	sleep 60 &
	other=$!
	host=$(hostname)
	# The claim that wrote this lock was killed; its pid was given to an
	# unrelated process since (here: a sleep started after the lock's time).
	mkdir -p .burl/.workflow/locks
	printf '{"owner":"agent","host":"%s","pid":%d,"created_at":"2026-01-01T00:00:00Z","action":"claim","start_time":"1","boot_id":"%s"}\n' \
		"$host" "$other" "$(cat /proc/sys/kernel/random/boot_id)" >.burl/.workflow/locks/TASK-001.lock
	run git burl lock list
	assert_output_contains "pid $other now belongs to another process"
	run git burl doctor --json
	assert_failure 2
	jq -e '.findings[] | select(.kind == "dead_lock" and .task == "TASK-001")' <<<"$output" >/dev/null
	run git burl doctor --repair --force
	assert_success
	run git burl claim TASK-001
	assert_success
	kill "$other"
	wait "$other" 2>/dev/null || true
}

# half_made_worktree: what a claim killed inside `git worktree add` leaves:
# the task branch and a registered worktree whose checkout never ran.
half_made_worktree() {
	git branch task-001-feature main
	git worktree add -q --no-checkout .worktrees/task-001-feature task-001-feature
}

@test "a half-made worktree from a killed claim: doctor names it, repair completes it, nothing is deleted" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	half_made_worktree
	[ -n "$(git -C .worktrees/task-001-feature status --porcelain)" ]
	run git burl doctor --json
	assert_failure 2
	jq -e '.findings[] | select(.kind == "partial_worktree" and .task == "TASK-001" and .repairable)' <<<"$output" >/dev/null
	run git burl doctor --repair --force
	assert_success
	[ -z "$(git -C .worktrees/task-001-feature status --porcelain)" ]
	[ -f .worktrees/task-001-feature/src/jump.go ]
}

@test "claim never hands out a half-made worktree: it completes the checkout first" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	half_made_worktree
	# A file the killed checkout had written already, and one a human put
	# there meanwhile: neither is overwritten.
	printf 'kept\n' >.worktrees/task-001-feature/notes.txt
	run git burl claim TASK-001
	assert_success
	wt=$(printf '%s\n' "$output" | tail -n 1)
	[ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ]
	[ "$(cat "$wt/notes.txt")" = kept ]
	[ "$(cat "$wt/README.md")" = "# demo" ]
	(cd "$wt" && commit_file src/a.go 'package src' "work")
	[ "$(git -C "$wt" show --name-status --format= HEAD)" = "$(printf 'A\tsrc/a.go')" ]
}

@test "a temp file of a killed atomic write is recognised as burl's and removed by repair" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	f=$(task_file TASK-001)
	cp "$f" "${f}2065969431"
	run git burl doctor --json
	assert_failure 2
	[ "$(jq -r '[.findings[].kind] | join(",")' <<<"$output")" = temp_file ]
	run git burl doctor --repair --force
	assert_success
	[ ! -e "${f}2065969431" ]
	[ -f "$f" ]
	run git burl doctor
	assert_success
}

# done_task: TASK-001 taken through the whole lifecycle to DONE.
done_task() {
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	submitted TASK-001 src/feature.go 'package src' >/dev/null
	git burl approve TASK-001 >/dev/null
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "repair never commits the loss of a task: a DONE file deleted by hand is restored from the workflow branch" {
	new_burl_repo
	done_task
	f=$(task_file TASK-001)
	before=$(cat "$f")
	rm "$f"
	run git burl doctor --json
	assert_failure 2
	jq -e '.findings[] | select(.kind == "lost_task" and .task == "TASK-001" and .repairable)' <<<"$output" >/dev/null
	run git burl doctor --repair --force
	assert_success
	[ "$(cat "$f")" = "$before" ]
	[ "$(bucket_of TASK-001)" = DONE ]
	git -C .burl ls-files --error-unmatch "${f#"$REPO/.burl/"}" >/dev/null
	run git burl show TASK-001
	assert_success
}

@test "a task deletion committed by hand is found by the event log and restored by repair" {
	new_burl_repo
	done_task
	git burl add "Second" --affects-glob 'src/**' >/dev/null
	f=$(task_file TASK-001)
	before=$(cat "$f")
	git -C .burl rm -q "${f#"$REPO/.burl/"}"
	git -C .burl commit -q -m "oops"
	run git burl doctor
	assert_failure 2
	assert_output_contains "TASK-001 is in no bucket"
	run git burl doctor --repair --force
	assert_success
	[ "$(cat "$f")" = "$before" ]
	[ -z "$(git -C .burl status --porcelain)" ]
	run git burl doctor
	assert_success
}

@test "a task moved by hand to another bucket disagrees with its last transition: doctor reports it, repair moves nothing" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	f=$(task_file TASK-001)
	git -C .burl mv ".workflow/READY/$(basename "$f")" ".workflow/BLOCKED/$(basename "$f")"
	git -C .burl commit -q -m "hand move"
	run git burl doctor --json
	assert_failure 2
	jq -e '.findings[] | select(.kind == "log_mismatch" and .task == "TASK-001" and (.message | contains("left it in READY")))' <<<"$output" >/dev/null
	run git burl doctor --repair --force
	assert_failure 2
	[ "$(bucket_of TASK-001)" = BLOCKED ]
}

# stopped_rebase WT: the state an approve killed inside `git rebase` leaves:
# the task branch being rebased onto main, stopped after its first step,
# HEAD detached.
stopped_rebase() {
	(cd "$1" && GIT_SEQUENCE_EDITOR="sed -i 1s/^pick/edit/" git rebase -q -i main >/dev/null 2>&1)
	[ -d "$(git -C "$1" rev-parse --git-path rebase-merge)" ]
}

@test "an approve killed mid-rebase: approve aborts the left rebase and lands the task, no reject" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	wt=$(submitted TASK-001 src/feature.go 'package src')
	commit_file other.txt 'other' "main moves on"
	stopped_rebase "$wt"
	run git burl approve TASK-001
	assert_success
	assert_output_contains "aborted the rebase an interrupted approve left"
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(field TASK-001 qa_attempts)" = 0 ] || [ -z "$(field TASK-001 qa_attempts)" ]
	git log --format=%s main | grep -qx "edit src/feature.go"
}

@test "an approve killed mid-rebase: doctor names the stopped rebase and repair aborts it; a worker's own rebase is only reported" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	wt=$(submitted TASK-001 src/feature.go 'package src')
	sub=$(field TASK-001 submitted_sha)
	commit_file other.txt 'other' "main moves on"
	stopped_rebase "$wt"
	run git burl doctor --json
	assert_failure 2
	jq -e '.findings[] | select(.kind == "rebase_in_progress" and .repairable and (.fix | contains("switch") | not))' <<<"$output" >/dev/null
	run git burl doctor --repair --force
	assert_success
	[ "$(git -C "$wt" symbolic-ref --short HEAD)" = task-001-feature ]
	[ "$(git -C "$wt" rev-parse HEAD)" = "$sub" ]

	# A DOING task's worker rebasing by hand: never aborted for them.
	git burl add "Second" --affects-glob 'lib/**' >/dev/null
	wt2=$(claim_wt TASK-002)
	(cd "$wt2" && commit_file lib/a.go 'package lib' "lib work")
	commit_file more.txt 'more' "main moves again"
	stopped_rebase "$wt2"
	run git burl doctor --repair --force
	assert_failure 2
	assert_output_contains "rebase --continue"
	[ -d "$(git -C "$wt2" rev-parse --git-path rebase-merge)" ]
	run git -C "$wt2" burl submit TASK-002
	assert_failure 1
	assert_output_contains "rebase --abort"
	refute_output_contains "git -C $wt2 switch"
}

# live_main_lock PID: a main.lock held by the live process PID, as an
# approve in flight holds it.
live_main_lock() {
	mkdir -p .burl/.workflow/locks
	printf '{"owner":"approver","host":"%s","pid":%d,"created_at":"%s","action":"approve","start_time":"%s","boot_id":"%s"}\n' \
		"$(hostname)" "$1" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(awk '{print $22}' "/proc/$1/stat")" \
		"$(cat /proc/sys/kernel/random/boot_id)" >.burl/.workflow/locks/main.lock
}

@test "claim waits out a divergence of main that an approve in flight explains; a lasting one exits 3 with safe advice" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git burl add "Other" --affects-glob 'lib/**' >/dev/null
	clone_repo "$BATS_TEST_TMPDIR/b"
	(cd "$BATS_TEST_TMPDIR/b" && commit_file b.txt 'from b' "b's approved work" && git push -q origin main)
	# An approve here has fast-forwarded local main and not pushed yet.
	commit_file a.txt 'from a' "a's approve in flight"
	sleep 30 &
	approver=$!
	live_main_lock "$approver"
	# ...and loses its push: it rewinds main and lets go of the lock.
	(sleep 1.5 && git reset -q --keep HEAD~1 && rm -f .burl/.workflow/locks/main.lock) &
	rewinder=$!
	run git burl claim TASK-001
	wait "$rewinder"
	kill "$approver"
	wait "$approver" 2>/dev/null || true
	assert_success
	[ "$(field TASK-001 base_sha)" = "$(git rev-parse origin/main)" ]

	# The same divergence with no approve running lasts: exit 3, and the
	# advice never tells anyone to rebase main blindly.
	commit_file c.txt 'from a' "local work nobody pushed"
	(cd "$BATS_TEST_TMPDIR/b" && commit_file d.txt 'more from b' "more of b" && git push -q origin main)
	run git burl claim TASK-002
	assert_failure 3
	assert_output_contains "no burl approve is running on this machine"
	assert_output_contains "git cherry -v origin/main main"
	[ "$(bucket_of TASK-002)" = READY ]
}

@test "an untracked file where the remote's newer main adds one: claim warns, starts from the remote's main, leaves the file" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	clone_repo "$BATS_TEST_TMPDIR/b"
	(cd "$BATS_TEST_TMPDIR/b" && commit_file notes.txt 'theirs' "add notes" && git push -q origin main)
	printf 'mine\n' >notes.txt
	before=$(git rev-parse main)
	run git burl claim TASK-001
	assert_success
	assert_output_contains "untracked files where the new commits add files"
	[ "$(cat notes.txt)" = mine ]
	[ "$(git rev-parse main)" = "$before" ]
	[ "$(field TASK-001 base_sha)" = "$(git rev-parse origin/main)" ]
}

@test "clean never deletes a branch whose only commit main lacks is a merge with content of its own" {
	new_burl_repo
	git switch -q -c side
	commit_file src/side.go 'package src' "side work"
	git switch -q main
	git cherry-pick side >/dev/null
	git switch -q -c task-009-evil main~1
	git merge -q --no-ff --no-commit side
	printf 'only here\n' >evil.txt
	git add evil.txt
	git commit -q -m "merge side, with more"
	git switch -q main
	git branch -q -D side
	run git burl clean --yes
	git rev-parse -q --verify task-009-evil >/dev/null
	run git burl doctor
	assert_output_contains "branch task-009-evil belongs to no task and holds commits main lacks"

	# Its rebased copy landing in main makes it safe to go.
	git merge -q --no-edit task-009-evil
	run git burl clean --yes
	assert_success
	! git rev-parse -q --verify task-009-evil >/dev/null
}

@test "re-claiming a reused branch after main moved fetches main and says how far it moved" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file src/f.go 'package src' "first try")
	git burl release TASK-001 --reason "later" >/dev/null
	clone_repo "$BATS_TEST_TMPDIR/b"
	(cd "$BATS_TEST_TMPDIR/b" && commit_file x.txt 1 "x" && commit_file y.txt 2 "y" && git push -q origin main)
	run git burl claim TASK-001
	assert_success
	assert_output_contains "main moved 2 commit(s) since TASK-001's base"
	[ "$(git rev-parse main)" = "$(git rev-parse origin/main)" ]
	git burl release TASK-001 --reason "again" >/dev/null
	run git burl claim TASK-001 --json
	assert_success
	[ "$(jq .main_moved <<<"$output")" = 2 ]
	[ "$(jq .reused <<<"$output")" = true ]
}

@test "an approve killed after its fast-forward, before its push: sync pushes main" {
	new_burl_repo
	set_config push_main_on_approve true
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	submitted TASK-001 src/feature.go 'package src' >/dev/null
	run env BURL_CRASH_AFTER=approve:merge git burl approve TASK-001
	[ "$status" -eq 137 ]
	[ "$(git rev-parse main)" != "$(git rev-parse origin/main)" ]
	run git burl sync --push
	assert_success
	assert_output_contains "main"
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse main)" ]
}

# stranded_approve: auto-push and push_main_on_approve; TASK-001 approved
# here by an approve killed after its workflow commit, before its push:
# local main and the DONE commit exist in this clone only.
stranded_approve() {
	new_burl_repo
	set_config workflow_auto_push true
	set_config push_main_on_approve true
	git -C .burl push -q origin burl
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git burl add "Other" --affects-glob 'lib/**' >/dev/null
	submitted TASK-001 src/feature.go 'package src' >/dev/null
	run env BURL_CRASH_AFTER=approve:commit git burl approve TASK-001
	[ "$status" -eq 137 ]
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" != "$(git rev-parse main)" ]
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/QA | grep -q TASK-001
	rm -f .burl/.workflow/locks/*.lock
}

@test "an approve killed between its commit and its push: the next push of this clone carries main with the DONE" {
	stranded_approve
	run git burl add "Later"
	assert_success
	# DONE reached the remote, and with it the work it records.
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/DONE | grep -q TASK-001
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse main)" ]
	git --git-dir="$ORIGIN" show main:src/feature.go | grep -q 'package src'
}

@test "an approve killed before its push while another clone moved main: DONE never reaches the remote without the work; the approve is redone" {
	stranded_approve
	clone_repo "$BATS_TEST_TMPDIR/b"
	(
		cd "$BATS_TEST_TMPDIR/b" && git burl init >/dev/null
		wt=$(git burl claim TASK-002 | tail -n 1)
		(cd "$wt" && commit_file lib/other.go 'package lib' "other" && git burl submit TASK-002 >/dev/null)
		git burl approve TASK-002 >/dev/null
	)
	run git burl add "Later"
	assert_success
	assert_output_contains "approve those tasks again"
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/QA | grep -q TASK-001
	[ "$(bucket_of TASK-001)" = QA ]
	# Local main held only the killed approve's commits, all on the task
	# branch: approve moves it back to the remote's main and lands the task.
	run git burl approve TASK-001
	assert_success
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/DONE | grep -q TASK-001
	git --git-dir="$ORIGIN" show main:src/feature.go | grep -q 'package src'
	git --git-dir="$ORIGIN" show main:lib/other.go | grep -q 'package lib'
	[ -z "$(git --git-dir="$ORIGIN" rev-list --merges main)" ]
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse main)" ]
	run git burl doctor
	assert_success
}

@test "an approve killed before its push while another clone moved main: doctor --repair never pushes the DONE without its work; the approve is redone" {
	stranded_approve
	clone_repo "$BATS_TEST_TMPDIR/b"
	(
		cd "$BATS_TEST_TMPDIR/b" && git burl init >/dev/null
		wt=$(git burl claim TASK-002 | tail -n 1)
		(cd "$wt" && commit_file lib/other.go 'package lib' "other" && git burl submit TASK-002 >/dev/null)
		git burl approve TASK-002 >/dev/null
	)
	run git burl doctor --repair --force
	# The stranded approve is dropped, as the next transition would drop it:
	# the remote has TASK-001 in QA, never DONE without its work.
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/QA | grep -q TASK-001
	! git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/DONE | grep -q TASK-001
	run git burl approve TASK-001
	assert_success
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/DONE | grep -q TASK-001
	git --git-dir="$ORIGIN" show main:src/feature.go | grep -q 'package src'
	run git burl doctor
	assert_success
}

@test "an approve killed before its push while another clone moved main: approving it again redoes it and publishes DONE with its work" {
	stranded_approve
	clone_repo "$BATS_TEST_TMPDIR/b"
	(
		cd "$BATS_TEST_TMPDIR/b" && git burl init >/dev/null
		wt=$(git burl claim TASK-002 | tail -n 1)
		(cd "$wt" && commit_file lib/other.go 'package lib' "other" && git burl submit TASK-002 >/dev/null)
		git burl approve TASK-002 >/dev/null
	)
	run git burl approve TASK-001
	assert_success
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/DONE | grep -q TASK-001
	git --git-dir="$ORIGIN" show main:src/feature.go | grep -q 'package src'
	git --git-dir="$ORIGIN" show main:lib/other.go | grep -q 'package lib'
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse main)" ]
	run git burl doctor
	assert_success
}

@test "an approve killed after its fast-forward, before its DONE: the next approve in this clone does not publish that work without its DONE" {
	new_burl_repo
	set_config workflow_auto_push true
	set_config push_main_on_approve true
	git -C .burl push -q origin burl
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git burl add "Other" --affects-glob 'lib/**' >/dev/null
	submitted TASK-001 src/feature.go 'package src' >/dev/null
	submitted TASK-002 lib/other.go 'package lib' >/dev/null
	run env BURL_CRASH_AFTER=approve:merge git burl approve TASK-001
	[ "$status" -eq 137 ]
	rm -f .burl/.workflow/locks/*.lock
	git show main:src/feature.go >/dev/null
	run git burl approve TASK-002
	assert_success
	assert_output_contains "stopped before its DONE"
	# The remote's main has TASK-002's work and not TASK-001's, whose DONE
	# it does not have either.
	git --git-dir="$ORIGIN" show main:lib/other.go | grep -q 'package lib'
	! git --git-dir="$ORIGIN" cat-file -e main:src/feature.go 2>/dev/null || false
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/QA | grep -q TASK-001
	# Approved again, TASK-001 lands with its DONE.
	run git burl approve TASK-001
	assert_success
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/DONE | grep -q TASK-001
	git --git-dir="$ORIGIN" show main:src/feature.go | grep -q 'package src'
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$(git rev-parse main)" ]
}

@test "a stranded approve's DONE carries the main it landed, not commits an approve in flight added to local main since" {
	stranded_approve
	landed=$(git rev-parse main)
	# An approve of TASK-002 in flight on this machine: it holds the main
	# lock and has fast-forwarded local main, not pushed yet.
	wt=$(claim_wt TASK-002)
	(cd "$wt" && commit_file lib/other.go 'package lib' "other" && git rebase -q main)
	git update-ref refs/heads/main "$(git -C "$wt" rev-parse HEAD)" "$landed"
	run git burl add "Later"
	assert_success
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/DONE | grep -q TASK-001
	[ "$(git ls-remote origin refs/heads/main | cut -f1)" = "$landed" ]
	! git --git-dir="$ORIGIN" cat-file -e main:lib/other.go 2>/dev/null || false
}

@test "doctor --repair leaves an approve in flight alone: it neither pushes main ahead of its DONE nor records the DONE for it" {
	new_burl_repo
	set_config workflow_auto_push true
	set_config push_main_on_approve true
	git -C .burl push -q origin burl
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	submitted TASK-001 src/feature.go 'package src' >/dev/null
	run env BURL_CRASH_AFTER=approve:merge git burl approve TASK-001
	[ "$status" -eq 137 ]
	# As an approve still running would hold them: its task and main locks,
	# by a live process of this host, main fast-forwarded, DONE not yet.
	sleep 60 &
	holder=$!
	now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	for l in TASK-001 main; do
		printf '{"owner":"other","host":"%s","pid":%s,"created_at":"%s","action":"approve"}\n' "$(uname -n)" "$holder" "$now" >".burl/.workflow/locks/$l.lock"
	done
	run git burl doctor --repair --force
	! git --git-dir="$ORIGIN" cat-file -e main:src/feature.go 2>/dev/null || false
	[ "$(bucket_of TASK-001)" = QA ]
	kill "$holder"
	wait "$holder" 2>/dev/null || true
	# Once its process is gone, repair finishes it: DONE and main together.
	run git burl doctor --repair --force
	[ "$(bucket_of TASK-001)" = DONE ]
	git --git-dir="$ORIGIN" show main:src/feature.go | grep -q 'package src'
	git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/DONE | grep -q TASK-001
}

@test "a claim killed before its commit, repaired here after another clone claimed the task: the repair is dropped, not replayed, and this clone goes on" {
	new_burl_repo
	set_config workflow_auto_push true
	git -C .burl push -q origin burl
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	run env BURL_CRASH_AFTER=claim:move git burl claim TASK-001
	[ "$status" -eq 137 ]
	clone_repo "$BATS_TEST_TMPDIR/b"
	(cd "$BATS_TEST_TMPDIR/b" && git burl init >/dev/null && BURL_ACTOR=bee git burl claim TASK-001 >/dev/null)
	run git burl doctor --repair --force
	assert_success
	assert_output_contains "workflow commit(s) of this clone that never reached origin and conflict"
	assert_output_contains "burl: repair TASK-001: uncommitted_change"
	run git burl add "Later"
	assert_success
	# One owner, the one the remote took first.
	[ "$(git rev-parse burl)" = "$(git ls-remote origin refs/heads/burl | cut -f1)" ]
	git --git-dir="$ORIGIN" show "burl:$(git --git-dir="$ORIGIN" ls-tree -r --name-only burl .workflow/DOING | grep TASK-001)" | grep -q 'assigned_to: bee'
	[ "$(bucket_of TASK-001)" = DOING ]
	grep -q 'assigned_to: bee' "$(task_file TASK-001)"
}

@test "a pull killed in the middle of its replay: the next command undoes the half-done rebase, and a stranded claim that lost its race is dropped" {
	new_burl_repo
	set_config workflow_auto_push true
	git -C .burl push -q origin burl
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	run env BURL_CRASH_AFTER=claim:commit git burl claim TASK-001
	[ "$status" -eq 137 ]
	rm -f .burl/.workflow/locks/*.lock
	clone_repo "$BATS_TEST_TMPDIR/b"
	(cd "$BATS_TEST_TMPDIR/b" && git burl init >/dev/null && BURL_ACTOR=bee git burl claim TASK-001 >/dev/null)
	# The replay a killed pull leaves: a rebase stopped on a conflict.
	git fetch -q origin burl
	! git -C .burl rebase -q origin/burl >/dev/null 2>&1 || false
	[ -d "$(git -C .burl rev-parse --git-path rebase-merge)" ]
	run git burl add "Later"
	assert_success
	assert_output_contains "aborted the replay of a pull that was killed midway"
	assert_output_contains "burl: claim TASK-001"
	[ "$(git -C .burl symbolic-ref HEAD)" = refs/heads/burl ]
	grep -q 'assigned_to: bee' "$(task_file TASK-001)"
	[ "$(git rev-parse burl)" = "$(git ls-remote origin refs/heads/burl | cut -f1)" ]
	run git burl doctor
	assert_success
}

@test "transitions keep committing while git gc and prune-packed run over the object store" {
	new_burl_repo
	(
		end=$((SECONDS + 20))
		while [ "$SECONDS" -lt "$end" ] && [ ! -e "$BATS_TEST_TMPDIR/stop" ]; do
			# What gc --auto and maintenance do (fresh loose objects are
			# kept two weeks; packed ones are removed from the fanout).
			git gc --quiet 2>/dev/null
			git repack -adq 2>/dev/null
			git prune-packed 2>/dev/null
		done
	) &
	gc=$!
	for i in $(seq 1 25); do
		git burl add "task $i" --affects "f$i.txt" >"$BATS_TEST_TMPDIR/add.out" 2>&1 || { cat "$BATS_TEST_TMPDIR/add.out" >&2; false; } || { touch "$BATS_TEST_TMPDIR/stop"; wait "$gc"; echo "add $i failed" >&2; return 1; }
	done
	touch "$BATS_TEST_TMPDIR/stop"
	wait "$gc" || true
	[ "$(ls .burl/.workflow/READY | grep -c '^TASK-')" = 25 ]
	[ -z "$(git -C .burl status --porcelain)" ]
	git -C .burl fsck --no-dangling --no-progress
	run git burl doctor
	assert_success
}
