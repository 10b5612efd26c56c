#!/usr/bin/env bats
# DESIGN §24, issue 39 item 4: provenance, not names. A scope change
# counts only when burl made it (git burl scope outside any run, its scope
# event in the same commit); a commit subject proves nothing. With
# sandbox: none a run during which the workflow branch gained a commit
# burl did not make fails (run_tampered).

load helpers
load lifecycle
load watch

setup() {
	watch_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	MAIN=$(git rev-parse main)
}

# widener: an agent (for sandbox: none) that widens its own task's scope
# to README.md on the workflow branch, in a commit named as burl names its
# own, then changes README.md.
widener() {
	# shellcheck disable=SC2016 # expanded by the agent
	agent widener 'f=$(ls '"$REPO"'/.burl/.workflow/DOING/"$BURL_TASK"-*.md)
sed -i "s|^affects: \[\]|affects: [README.md]|" "$f"
git -C '"$REPO"'/.burl commit -qm "burl: scope $BURL_TASK" -- "${f#'"$REPO"'/.burl/}" 2>'"$AGENTS"'/commit.err && echo committed >'"$AGENTS"'/committed
echo widened >README.md
mkdir -p src && echo ok >src/ok.txt'
}

@test "item 4: sandbox: none: an agent's own commit 'burl: scope TASK-001' on the workflow branch is run_tampered; its out-of-scope work lands nothing" {
	widener
	SANDBOX=none RETRIES=0 one_agent widener
	run git burl watch --once --interval 100ms
	[ -s "$AGENTS/committed" ] || { cat "$AGENTS/commit.err" >&2; false; }
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	[ "$(git rev-parse main)" = "$MAIN" ]
	[ "$(git show main:README.md)" != widened ]
	all_events | grep '"action":"run_tampered"' | grep '"task":"TASK-001"' | grep -q 'gained commit(s) burl did not make' || { all_events >&2; false; }
	! all_events | grep '"action":"scope"' | grep -q TASK-001 || false
	grep -q 'blocked_reason: .*did not make' "$(task_file TASK-001)"
}

@test "item 4: commits on the workflow branch subjected 'burl: scope' or 'burl: claim' without their event are no scope change: submit refuses, naming the commit" {
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file README.md widened)
	f=$(task_file TASK-001)
	sed -i "s|^affects: \[\]|affects: [README.md]|" "$f"
	git -C .burl commit -qm "burl: scope TASK-001" -- "${f#"$REPO/.burl/"}"
	forged=$(git -C .burl rev-parse --short=10 HEAD)
	run git -C "$wt" burl submit TASK-001
	assert_failure 2
	assert_output_contains "$forged"
	assert_output_contains "not by git burl scope"
	# A forged claim after it is no new starting point either.
	printf '\n' >>"$f"
	git -C .burl commit -qm "burl: claim TASK-001" -- "${f#"$REPO/.burl/"}"
	run git -C "$wt" burl submit TASK-001
	assert_failure 2
	assert_output_contains "$forged"
	[ "$(bucket_of TASK-001)" = DOING ]
}
