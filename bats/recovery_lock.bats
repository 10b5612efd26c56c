#!/usr/bin/env bats
# git burl lock list / lock clear (PRD 10.3), and which locks doctor
# --repair may clear: those of dead processes and stale ones, never a live
# one.

bats_require_minimum_version 1.5.0

load helpers

LOCKS=.burl/.workflow/locks

# fake_lock NAME HOST PID CREATED_AT ACTION: a lock file as burl writes it.
fake_lock() {
	printf '{"owner":"agent-7","host":"%s","pid":%s,"created_at":"%s","action":"%s"}\n' "$2" "$3" "$4" "$5" >"$LOCKS/$1.lock"
}

now() { date -u +%Y-%m-%dT%H:%M:%SZ; }

@test "lock list shows owner, host, pid, action and age of every lock, and marks dead and stale ones" {
	new_burl_repo
	run git burl lock list
	assert_success
	assert_output_contains "No locks are held"
	run git burl lock list --json
	[ "$(jq -c .locks <<<"$output")" = "[]" ]

	git burl add "Feature" >/dev/null
	run env BURL_CRASH_AFTER=claim:prepare git burl claim TASK-001
	[ "$status" -eq 137 ]
	fake_lock TASK-009 "$(uname -n)" $$ 2020-01-01T00:00:00Z submit
	fake_lock claim "$(uname -n)" $$ "$(now)" claim

	run git burl lock list
	assert_success
	assert_output_contains ".burl/.workflow/locks/TASK-001.lock  created"
	[[ "$(grep TASK-001.lock <<<"$output")" == *"(pid "*", claim); that process is no longer running"* ]]
	[[ "$(grep TASK-009.lock <<<"$output")" == *"by agent-7@$(uname -n) (pid $$, submit); stale"* ]]
	[[ "$(grep claim.lock <<<"$output")" != *"stale"* ]]
	[[ "$(grep claim.lock <<<"$output")" != *"no longer running"* ]]

	run git burl lock list --json
	assert_success
	[ "$(jq -r '.locks[] | select(.name == "TASK-001") | [.dead, .stale, .info.action] | join(" ")' <<<"$output")" = "true false claim" ]
	[ "$(jq -r '.locks[] | select(.name == "TASK-009") | [.dead, .stale, .info.owner, .info.host, .info.pid] | join(" ")' <<<"$output")" = "false true agent-7 $(uname -n) $$" ]
	[ "$(jq -r '.locks[] | select(.name == "TASK-009") | .age_seconds > 3600' <<<"$output")" = true ]
	[ "$(jq -r '.locks[] | select(.name == "claim") | [.dead, .stale] | join(" ")' <<<"$output")" = "false false" ]
}

# A lock burl cannot prove dead (another host's) is cleared only by hand.
@test "lock clear refuses without --force; with it, removes the lock and commits a lock_clear event holding the lock's content" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	pid=4242
	fake_lock TASK-001 build-host-elsewhere "$pid" "$(now)" claim

	run git burl claim TASK-001
	assert_failure 4
	assert_output_contains "git burl lock clear TASK-001 --force"

	run git burl lock clear TASK-001
	assert_failure 1
	assert_output_contains "--force"
	[ -f "$LOCKS/TASK-001.lock" ]

	run git burl lock clear task-001 --force
	assert_success
	[ ! -e "$LOCKS/TASK-001.lock" ]
	[ -z "$(git -C .burl status --porcelain)" ]
	event=$(git -C .burl show "HEAD:$(event_shard)" | tail -n 1)
	[ "$(jq -r '[.action, .task, .details.lock, .details.content.action] | join(" ")' <<<"$event")" = "lock_clear TASK-001 TASK-001 claim" ]
	[ "$(jq -r .details.content.pid <<<"$event")" = "$pid" ]

	run git burl claim TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = DOING ]
}

@test "lock clear of an unknown, absent or malicious name fails with exit 1" {
	new_burl_repo
	run git burl lock clear TASK-005 --force
	assert_failure 1
	assert_output_contains "no lock named TASK-005"
	run git burl lock clear ../../config --force
	assert_failure 1
	run git burl lock clear
	assert_failure 1
	run git burl lock bogus
	assert_failure 1
	[ -f .burl/.workflow/config.yaml ]
}

@test "lock clear of a task lock while the workflow lock is dead says to clear that first" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	run env BURL_CRASH_AFTER=claim:write git burl claim TASK-001
	[ "$status" -eq 137 ]
	run git burl lock clear TASK-001 --force
	assert_failure 4
	assert_output_contains "git burl lock clear workflow --force"
	[ -f "$LOCKS/TASK-001.lock" ]
	git burl lock clear workflow --force >/dev/null
	git burl lock clear TASK-001 --force >/dev/null
	[ "$(git burl log --action lock_clear --json | jq '.events | length')" -eq 2 ]
}

@test "doctor --repair clears dead and stale locks but never a live one; lock clear --force does" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	run env BURL_CRASH_AFTER=claim:prepare git burl claim TASK-001
	[ "$status" -eq 137 ]
	fake_lock TASK-008 build-host-elsewhere 4242 2020-01-01T00:00:00Z validate
	fake_lock TASK-009 "$(uname -n)" $$ 2020-01-01T00:00:00Z submit
	fake_lock claim "$(uname -n)" $$ "$(now)" claim

	run git burl doctor --json
	assert_failure 2
	[ "$(jq -r '.findings[] | select(.task == "TASK-001") | [.kind, .repairable] | join(" ")' <<<"$output")" = "dead_lock true" ]
	[ "$(jq -r '.findings[] | select(.task == "TASK-008") | [.kind, .repairable] | join(" ")' <<<"$output")" = "stale_lock true" ]
	[ "$(jq -r '.findings[] | select(.task == "TASK-009") | [.kind, .repairable] | join(" ")' <<<"$output")" = "stale_lock false" ]
	# A fresh lock of a running process is a command at work, not a problem.
	[ "$(jq '[.findings[] | select(.path | endswith("claim.lock"))] | length' <<<"$output")" -eq 0 ]

	run git burl doctor --repair --force
	assert_failure 2
	[ ! -e "$LOCKS/TASK-001.lock" ]
	[ ! -e "$LOCKS/TASK-008.lock" ]
	[ -f "$LOCKS/TASK-009.lock" ]
	[ -f "$LOCKS/claim.lock" ]
	git burl log --action repair --json | jq -e '.events[-1].details.cleared_locks | length == 2' >/dev/null

	run git burl lock clear TASK-009 --force
	assert_success
	assert_output_contains "still running"
	run git burl doctor
	assert_success
}

@test "a dead fast-forward lock is cleared by the claim that must fast-forward main: one line, a lock_cleared event" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	clone_repo "$BATS_TEST_TMPDIR/other"
	(cd "$BATS_TEST_TMPDIR/other" && commit_file elsewhere.txt "pushed from another clone" && git push -q origin main)
	ahead=$(git ls-remote origin refs/heads/main | cut -f1)
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	fake_lock fast-forward "$(uname -n)" "$dead" "$(now)" fast-forward

	run --separate-stderr git burl claim TASK-001
	assert_success
	[ "$(grep -c 'cleared lock' <<<"$stderr")" = 1 ]
	[[ "$stderr" == *"burl: cleared lock .burl/.workflow/locks/fast-forward.lock: created "*"(pid $dead, fast-forward); that process is no longer running"* ]]
	[ ! -e "$LOCKS/fast-forward.lock" ]
	git burl log --action lock_cleared --json | jq -e --arg pid "$dead" '.events[-1].details | .lock == "fast-forward" and (.content.pid | tostring) == $pid'
	[ "$(git rev-parse main)" = "$ahead" ]
	[ -z "$(git status --porcelain)" ]
}

# A command killed between its move and its commit leaves its workflow lock
# and a task moved but not committed. doctor's repair takes that lock over
# rather than clearing it, so no other command can take it and run over the
# leftovers in between: killed right after, it leaves the workflow locked
# (by itself, dead), the next command is refused, and the next repair
# finishes the work with the task in one bucket.
@test "doctor --repair takes a dead command's workflow lock over: killed right after, the workflow stays locked until a repair finishes" {
	new_burl_repo
	git burl add "Feature" >/dev/null
	git burl add "Other" >/dev/null
	run env BURL_CRASH_AFTER=claim:move git burl claim TASK-001
	[ "$status" -eq 137 ]
	run env BURL_CRASH_AFTER=repair:locks git burl doctor --repair --force
	[ "$status" -eq 137 ]
	[ "$(jq -r .action "$LOCKS/workflow.lock")" = repair ]
	[ "$(jq -r .action "$LOCKS/repair.lock")" = repair ]
	run git burl claim TASK-002
	assert_failure 4
	assert_output_contains "workflow is locked"
	[ -z "$(git -C .burl status --porcelain -- .workflow/READY/TASK-002-other.md)" ]
	run git burl doctor --repair --force
	assert_success
	assert_output_contains "took over .burl/.workflow/locks/workflow.lock"
	run git burl doctor
	assert_success
	[ "$(ls .burl/.workflow/*/TASK-001-* | wc -l)" -eq 1 ]
	[ -z "$(ls $LOCKS)" ]
	git -C .burl log -1 --format=%s | grep -q "^burl: repair TASK-001: uncommitted_change"
	run git burl claim TASK-002
	assert_success
}
