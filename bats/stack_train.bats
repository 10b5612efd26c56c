#!/usr/bin/env bats
# The merge queue's train (DESIGN §26, stack: true): a task submitted
# while its parent's batch builds is staged on that batch's staged top and
# built at once, beside it, instead of after the parent landed; it lands
# after the parent, and only when everything below it landed as built.
# The parent's build submits the child here (it stands for the child's
# agent finishing meanwhile), so that the child arrives mid-build.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

# train_repo FAIL: stack: true, squash, TASK-001 submitted and TASK-002
# claimed on it with its work committed; the build (unconfined, so that it
# can submit and log) logs its start and end per task in $LOG, and, built
# for the parent, submits the child and waits until the child's build has
# begun (or 10 s). FAIL names the task whose build fails ("" for none).
train_repo() {
	new_burl_repo
	set_config merge_strategy squash
	set_config max_parallel 0
	printf 'stack: true\nsandbox: none\n' >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: stack" -- .workflow/config.yaml
	git burl add "Parent" --affects parent.txt >/dev/null
	git burl add "Child" --affects child.txt --depends-on TASK-001 >/dev/null
	submitted TASK-001 parent.txt parent >/dev/null
	CHILD_WT=$(claim_wt TASK-002)
	[ "$(field TASK-002 stacked_on)" = TASK-001 ]
	(cd "$CHILD_WT" && commit_file child.txt child)
	LOG="$BATS_TEST_TMPDIR/builds"
	cat >"$BATS_TEST_TMPDIR/build.sh" <<SH
#!/bin/sh
echo "start \$BURL_TASK \$(date +%s%N)" >>"$LOG"
if [ "\$BURL_TASK" = TASK-001 ]; then
	git -C "$REPO" burl submit TASK-002 >"$BATS_TEST_TMPDIR/submit.out" 2>&1 || :
	n=0
	until grep -q "^start TASK-002" "$LOG"; do n=\$((n+1)); [ \$n -lt 100 ] || break; sleep 0.1; done
fi
echo "end \$BURL_TASK \$(date +%s%N)" >>"$LOG"
[ "\$BURL_TASK" != "$1" ]
SH
	chmod +x "$BATS_TEST_TMPDIR/build.sh"
	set_config build_command "\"$BATS_TEST_TMPDIR/build.sh\""
}

# at WHAT ID: the time the build log says WHAT (start, end) for ID.
at() {
	awk -v w="$1" -v id="$2" '$1 == w && $2 == id { print $3; exit }' "$LOG"
}

@test "stack train: a child submitted while its parent builds is built at once on the parent's staged squash, and lands after it" {
	train_repo ""
	run git burl approve --all
	assert_success
	assert_output_contains "2 approved, 0 not approved, 2 build(s)"
	# The child's build began while the parent's ran: before it ended, so
	# before the parent landed.
	[ -n "$(at start TASK-002)" ]
	[ "$(at start TASK-002)" -lt "$(at end TASK-001)" ]
	[ "$(git log -2 --format=%s main | paste -sd,)" = "Child (TASK-002),Parent (TASK-001)" ]
	[ "$(git show main:child.txt)" = child ]
	[ "$(git show main:parent.txt)" = parent ]
	# approved in order, the parent first.
	[ "$(all_events | jq -r -s '[.[] | select(.action == "approve") | .task] | join(",")')" = TASK-001,TASK-002 ]
	run git burl verify main~2..main
	assert_success
	run git burl doctor
	assert_success
}

@test "stack train: when the parent's build fails, the child built on it does not land: back at its submitted head, waiting in QA" {
	train_repo TASK-001
	main0=$(git rev-parse main)
	run git burl approve --all --json
	assert_failure 2
	[ -n "$(at start TASK-002)" ]
	[ "$(jq -r '.approved | length' <<<"$output")" = 0 ]
	[ "$(jq -r '.rejected[0].id' <<<"$output")" = TASK-001 ]
	[ "$(jq -r '.waiting[0].id' <<<"$output")" = TASK-002 ]
	[ "$(bucket_of TASK-001)" = READY ]
	[ "$(bucket_of TASK-002)" = QA ]
	[ "$(git rev-parse main)" = "$main0" ]
	[ "$(git -C "$CHILD_WT" rev-parse HEAD)" = "$(field TASK-002 submitted_sha)" ]
	[ -z "$(ls "$REPO/.git/burl/approve-intent" 2>/dev/null)" ]
	run git burl doctor
	assert_success
}

@test "stack train: when the child's build fails, its parent lands and the child alone is rejected" {
	train_repo TASK-002
	run git burl approve --all --json
	assert_failure 2
	[ "$(jq -r '.approved | join(",")' <<<"$output")" = TASK-001 ]
	[ "$(jq -r '.rejected[0].id' <<<"$output")" = TASK-002 ]
	[ "$(at start TASK-002)" -lt "$(at end TASK-001)" ]
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(bucket_of TASK-002)" = READY ]
	[ "$(git log -1 --format=%s main)" = "Parent (TASK-001)" ]
	run git burl doctor
	assert_success
}

@test "stack train: killed while the child builds behind its parent, nothing landed; doctor repairs, and approve --all lands both in order" {
	train_repo ""
	main0=$(git rev-parse main)
	run env BURL_CRASH_AFTER=queue:train git burl approve --all
	[ "$status" -eq 137 ]
	[ "$(git rev-parse main)" = "$main0" ]
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(bucket_of TASK-002)" = QA ]
	run git burl doctor --repair --force
	assert_success
	run git burl doctor
	assert_success
	run git burl approve --all
	assert_success
	assert_output_contains "2 approved, 0 not approved"
	[ "$(git log -2 --format=%s main | paste -sd,)" = "Child (TASK-002),Parent (TASK-001)" ]
	[ "$(git show main:child.txt)" = child ]
	[ -z "$(ls "$REPO/.git/burl/approve-intent" 2>/dev/null)" ]
	run git burl doctor
	assert_success
}

@test "stack train, watch: the child's agent finishes while its parent builds; the child's build starts before the parent lands, and they land in order" {
	watch_repo
	set_config merge_strategy squash
	printf 'stack: true\nsandbox: none\n' >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: stack" -- .workflow/config.yaml
	git burl add "Parent" --affects parent.txt >/dev/null
	git burl add "Child" --affects child.txt --depends-on TASK-001 >/dev/null
	LOG="$BATS_TEST_TMPDIR/builds"
	# The parent's build lasts until the child's has begun (20 s at
	# most): before trains, the child's build began after the parent
	# landed, so after that build's end.
	cat >"$BATS_TEST_TMPDIR/build.sh" <<SH
#!/bin/sh
echo "start \$BURL_TASK \$(date +%s%N)" >>"$LOG"
if [ "\$BURL_TASK" = TASK-001 ]; then
	n=0
	until grep -q "^start TASK-002" "$LOG"; do n=\$((n+1)); [ \$n -lt 200 ] || break; sleep 0.1; done
fi
echo "end \$BURL_TASK \$(date +%s%N)" >>"$LOG"
SH
	chmod +x "$BATS_TEST_TMPDIR/build.sh"
	set_config build_command "\"$BATS_TEST_TMPDIR/build.sh\""
	# shellcheck disable=SC2016 # expanded by the agent
	agent chain 'echo "$BURL_TASK" >"$(echo "$BURL_TASK" | sed "s/TASK-001/parent/; s/TASK-002/child/").txt"
git add -A && git commit -q -m "$BURL_TASK part"'
	SANDBOX=none MAXP=2 TIMEOUT=60s one_agent chain
	run --separate-stderr git burl watch --once --interval 100ms
	echo "$output"
	assert_success
	[ "$(field TASK-002 stacked_on)" = TASK-001 ]
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(bucket_of TASK-002)" = DONE ]
	[ "$(at start TASK-002)" -lt "$(at end TASK-001)" ]
	[ "$(git log -2 --format=%s main | paste -sd,)" = "Child (TASK-002),Parent (TASK-001)" ]
	[ "$(all_events | jq -r -s '[.[] | select(.action == "approve") | .task] | join(",")')" = TASK-001,TASK-002 ]
	! grep -q '"action":"run_tampered"' <(all_events)
}
