#!/usr/bin/env bats
# DESIGN §17 against a real Gitea on loopback: approve opens the pull
# request, sync settles what the forge (or a human) did with it.

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
}

@test "approve opens a pull request: the task stays in QA with pr_url, pr_number, pr_head, and main is not pushed" {
	git burl add "Jump high" --affects src/jump.go --description "Make Jump print high." >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	main=$(git rev-parse origin/main)

	run git burl approve TASK-001
	assert_success
	assert_output_contains "Opened pull request #1 for TASK-001: ${GITEA_URL}$GITEA_REPO/pulls/1"
	last_event pr_open | jq -e '.details.updated == null' >/dev/null
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(field TASK-001 pr_number)" = 1 ]
	[ "$(field TASK-001 pr_url)" = "${GITEA_URL}$GITEA_REPO/pulls/1" ]
	head=$(field TASK-001 pr_head)
	# What the forge holds is what the gates passed.
	[ "$(pr_field 1 head.sha)" = "$head" ]
	[ "$(pr_field 1 state)" = open ]
	[ "$(pr_field 1 title)" = "TASK-001: Jump high" ]
	pr_field 1 body | grep -q "Make Jump print high."
	pr_field 1 body | grep -q -- "- scope: pass"
	git fetch -q origin
	[ "$(git rev-parse origin/main)" = "$main" ]
	[ "$(git rev-parse main)" = "$main" ]
	last_event pr_open | jq -e '.details.number == 1 and (.details.url | endswith("/pulls/1"))' >/dev/null

	run git burl status
	assert_output_contains "[PR #1 open: ${GITEA_URL}$GITEA_REPO/pulls/1]"
	assert_output_contains "next: git burl sync"
	refute_output_contains "git burl approve TASK-001"
	run git burl show TASK-001
	assert_output_contains "pr_url:"
	assert_output_contains "next:          git burl sync (pull request #1 is open"

	# A second approve updates the open request instead of opening another,
	# and says so.
	run git burl approve TASK-001 --json
	assert_success
	[ "$(jq -r '.pr.number' <<<"$output")" = 1 ]
	[ "$(jq -r '.pr.updated' <<<"$output")" = true ]
	[ "$(gitea_api GET "/repos/$GITEA_REPO/pulls?state=all" | jq length)" = 1 ]
	run git burl approve TASK-001
	assert_success
	assert_output_contains "Updated the open pull request #1 for TASK-001"
	refute_output_contains "Opened"

	# Nothing merged it yet: sync leaves it open.
	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #1: open"
	[ "$(bucket_of TASK-001)" = QA ]
}

@test "merges by the API in each style and a push to main outside the PR each land DONE with the commit on main that holds the work" {
	for n in 1 2 3 4; do
		git burl add "Part $n" --affects "src/part$n.go" >/dev/null
		id=$(printf 'TASK-%03d' "$n")
		wt=$(claim_wt "$id")
		# Two commits: a squash merge is then not any one of them.
		(cd "$wt" && commit_file "src/part$n.go" "package src // part $n" && commit_file "src/part$n.go" "package src // part $n, done" && git burl submit >/dev/null)
	done
	run git burl approve --all
	assert_success
	assert_output_contains "opened pull request #1 for TASK-001"
	assert_output_contains "opened pull request #4 for TASK-004"
	assert_output_contains "approve --all: 4 pull request(s) opened or updated"
	[ "$(gitea_api GET "/repos/$GITEA_REPO/pulls?state=open" | jq length)" = 4 ]
	run git burl approve --all
	assert_output_contains "left TASK-001 in QA: its pull request #1 is open"
	# A round while all four are open: settle remembers that git found none
	# of them on main, and must ask git again once main moves.
	run git burl sync --settle --json
	assert_success
	[ "$(jq '[.settle.prs[] | select(.result == "open")] | length' <<<"$output")" = 4 ]

	gitea_merge 1 merge
	gitea_merge 2 rebase
	gitea_merge 3 squash
	# TASK-004 lands outside its pull request: a human pushes its commits.
	git fetch -q origin
	git checkout -q -b by-hand origin/main
	git cherry-pick "$(field TASK-004 pr_head)~1" "$(field TASK-004 pr_head)" >/dev/null
	git push -q origin HEAD:main
	git checkout -q main

	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #1: merged"
	assert_output_contains "TASK-002 pull request #2: merged"
	assert_output_contains "TASK-003 pull request #3: merged"
	assert_output_contains "TASK-004 pull request #4: merged"
	for id in TASK-001 TASK-002 TASK-003 TASK-004; do
		[ "$(bucket_of "$id")" = DONE ]
		[ -n "$(field "$id" completed_at)" ]
	done
	git fetch -q origin
	merged() { all_events | jq -r "select(.action == \"pr_merged\" and .task == \"$1\") | .details.merged_sha"; }
	how() { all_events | jq -r "select(.action == \"pr_merged\" and .task == \"$1\") | .details.how"; }
	# merge style: the forge's merge commit.
	[ "$(merged TASK-001)" = "$(pr_field 1 merge_commit_sha)" ]
	[ "$(how TASK-001)" = ancestry ]
	# rebase style: the rewritten commits, the last of them holding it all.
	[ "$(how TASK-002)" = cherry ]
	[ "$(git show -s --format=%s "$(merged TASK-002)")" = "edit src/part2.go" ]
	git show "$(merged TASK-002)":src/part2.go | grep -q "part 2, done"
	# squash style: the one commit with the combined diff.
	[ "$(how TASK-003)" = squash ]
	[ "$(merged TASK-003)" = "$(pr_field 3 merge_commit_sha)" ]
	# The hand push: the commit on main that holds its work.
	[ "$(how TASK-004)" = cherry ]
	[ "$(merged TASK-004)" = "$(git rev-parse origin/main)" ]
	for id in TASK-001 TASK-002 TASK-003 TASK-004; do
		git merge-base --is-ancestor "$(merged "$id")" origin/main
	done
	# Worktrees and branches went with DONE.
	[ -z "$(git branch --list 'task-*')" ]
	[ "$(find .worktrees -mindepth 1 -maxdepth 1 | wc -l)" = 0 ]
	# Settled once: a second sync finds nothing left to settle.
	run git burl sync
	refute_output_contains "pull request #"
	[ "$(all_events | jq -r 'select(.action == "pr_merged") | .task' | wc -l)" = 4 ]
}

@test "a pull request closed without merge blocks the task with the closing comment as its reason: a human said no" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	gitea_api POST "/repos/$GITEA_REPO/issues/1/comments" '{"body":"We do not jump on Mondays."}' "$GITEA_REVIEWER_TOKEN" >/dev/null
	gitea_api PATCH "/repos/$GITEA_REPO/pulls/1" '{"state":"closed"}' >/dev/null

	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #1: closed; TASK-001 → BLOCKED: pull request #1 closed: reviewer: We do not jump on Mondays."
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	# Not a QA round: the agent did nothing wrong, a human decided.
	[ -z "$(field TASK-001 qa_attempts)" ] || [ "$(field TASK-001 qa_attempts)" = 0 ]
	[ "$(field TASK-001 pr_number)" = null ]
	field TASK-001 blocked_reason | grep -q "pull request #1 closed: reviewer: We do not jump on Mondays."
	last_event pr_closed | jq -e '.details.to == "BLOCKED" and (.details.reason | contains("We do not jump on Mondays"))' >/dev/null
	run git burl show TASK-001
	assert_output_contains "Reason: pull request #1 closed: reviewer: We do not jump on Mondays."

	# No agent takes it: claim refuses BLOCKED until a human gives it back.
	run git burl claim TASK-001
	assert_failure
	run git burl unblock TASK-001
	assert_success
	[ "$(bucket_of TASK-001)" = READY ]
}

@test "pr_closed: ready sends a task whose pull request was closed back to READY as a QA rejection (Part III)" {
	printf 'pr_closed: ready\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -q -m "config: closed pull requests go back to the agents" -- .workflow/config.yaml
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	gitea_api POST "/repos/$GITEA_REPO/issues/1/comments" '{"body":"We do not jump on Mondays."}' "$GITEA_REVIEWER_TOKEN" >/dev/null
	gitea_api PATCH "/repos/$GITEA_REPO/pulls/1" '{"state":"closed"}' >/dev/null

	run git burl sync --json
	assert_success
	jq -e '.settle.prs[0] | .result == "closed" and .to == "READY"' <<<"$output" >/dev/null
	[ "$(bucket_of TASK-001)" = READY ]
	[ "$(field TASK-001 qa_attempts)" = 1 ]
	[ "$(field TASK-001 pr_number)" = null ]
	last_event pr_closed | jq -e '.details.to == "READY" and (.details.reason | contains("We do not jump on Mondays"))' >/dev/null
	run git burl show TASK-001
	assert_output_contains "Reason: pull request #1 closed: reviewer: We do not jump on Mondays."

	# The next attempt opens a new pull request (the closed one stays closed).
	wt=$(claim_wt TASK-001)
	(cd "$wt" && commit_file src/jump.go "$(jump_go 'println("higher")')" && git burl submit >/dev/null)
	run git burl approve TASK-001
	assert_success
	assert_output_contains "Opened pull request #2 for TASK-001"
}

@test "after a pull request lands sync fast-forwards a clean local main, says how far behind a dirty one is and how to catch up, and never moves one with local commits" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	before=$(git rev-parse main)
	gitea_merge 1 rebase
	# A human's edit in the main worktree: main must not move under it.
	echo "mine" >>README.md

	run git burl sync
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(git rev-parse main)" = "$before" ]
	assert_output_contains "Local main is 1 commit(s) behind origin/main and stays at $(git rev-parse main | cut -c1-10): main is checked out in"
	assert_output_contains "with uncommitted changes"
	assert_output_contains "to catch up: git -C "
	assert_output_contains " merge --ff-only origin/main"
	grep -q mine README.md

	# Clean, it follows: the work the forge merged is in local main.
	git stash -q
	run git burl sync --json
	assert_success
	jq -e '.main | .branch == "main" and .result == "fast-forwarded" and .behind == 1 and .ahead == 0' <<<"$output" >/dev/null
	[ "$(git rev-parse main)" = "$(git rev-parse origin/main)" ]
	grep -q high src/jump.go
	run git burl sync --json
	jq -e '.main.result == "up-to-date"' <<<"$output" >/dev/null

	# A local commit on main the remote lacks is only reported, never lost.
	git burl add "Run" --affects src/run.go >/dev/null
	submitted TASK-002 src/run.go "$(printf 'package src\n\nfunc Run() {}')" >/dev/null
	git burl approve TASK-002 >/dev/null
	commit_file notes.txt "a note of mine"
	mine=$(git rev-parse main)
	gitea_merge 2 rebase
	run git burl sync
	assert_success
	[ "$(bucket_of TASK-002)" = DONE ]
	[ "$(git rev-parse main)" = "$mine" ]
	assert_output_contains "Local main and origin/main have diverged: local main has 1 commit(s) that origin/main lacks, and lacks 1 of its"
	assert_output_contains "git cherry -v origin/main main"
	run git burl sync --json
	jq -e '.main | .result == "diverged" and .ahead == 1 and .behind == 1' <<<"$output" >/dev/null
	[ "$(git rev-parse main)" = "$mine" ]
}

@test "the token never appears in argv, the event log, the run logs or the workflow branch" {
	# The token from the environment this time, not the credential store.
	export BURL_FORGE_TOKEN="$GITEA_TOKEN"
	rm -f "$HOME/.git-credentials"
	git config --global credential.helper ""
	# git itself still needs to push: a URL-less header it reads from a file
	# burl never sees would do, but the simplest is a second store for git only.
	printf 'http://burl:%s@%s\n' "$GITEA_TOKEN" "$(sed 's,^http://,,; s,/$,,' <<<"$GITEA_URL")" >"$BATS_TEST_TMPDIR/git-only-creds"
	git config credential.helper "store --file=$BATS_TEST_TMPDIR/git-only-creds"
	# Every process's argv, sampled while burl works.
	( while :; do for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' <"$f" 2>/dev/null || true; echo; done; done ) >"$BATS_TEST_TMPDIR/argv" 2>/dev/null &
	sampler=$!
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	gitea_merge 1 rebase
	git burl sync >/dev/null 2>"$BATS_TEST_TMPDIR/sync.err"
	kill "$sampler"
	[ "$(bucket_of TASK-001)" = DONE ]
	grep -q "git-burl-sync" "$BATS_TEST_TMPDIR/argv" || grep -q "burl sync" "$BATS_TEST_TMPDIR/argv"
	! grep -q "$GITEA_TOKEN" "$BATS_TEST_TMPDIR/argv"
	! grep -q "$GITEA_TOKEN" "$BATS_TEST_TMPDIR/sync.err"
	! git log -p burl | grep -q "$GITEA_TOKEN"
	! grep -rq "$GITEA_TOKEN" .burl/
}

@test "a review asking for changes sends the task back; watch's next prompt carries the reviewer's words and its next approve updates the same pull request" {
	load watch
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
	set_config max_parallel 0
	no_backoff
	git burl add "Greeting" --affects-glob "src/top/**" >/dev/null
	agent top 'mkdir -p src/top; echo "top $BURL_ATTEMPT $(date +%N)" >src/top/t.txt'
	one_agent top
	run git burl watch --once --interval 100ms
	assert_success
	assert_output_contains "TASK-001: pull request #1 opened: "
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(field TASK-001 pr_number)" = 1 ]
	first=$(field TASK-001 pr_head)

	gitea_api POST "/repos/$GITEA_REPO/pulls/1/reviews" '{"event":"REQUEST_CHANGES","body":"t.txt must say hello, not top"}' "$GITEA_REVIEWER_TOKEN" >/dev/null
	run git burl watch --once --interval 100ms
	printf '%s\n' "$output"
	assert_output_contains "TASK-001: rejected: pull request #1: reviewer: t.txt must say hello, not top"
	# The same request, open all along, got the new work: updated, not opened.
	assert_output_contains "TASK-001: pull request #1 updated: "
	refute_output_contains "pull request #1 opened"
	last_event pr_open | jq -e '.details.updated == true' >/dev/null
	# The next run's prompt has what the reviewer said.
	grep -q 't.txt must say hello, not top' "$AGENTS/prompts/TASK-001-2.md"
	last_event pr_changes_requested | jq -e '.details.reason | contains("t.txt must say hello, not top")' >/dev/null
	# Its work went to the same pull request, now at the new head.
	[ "$(bucket_of TASK-001)" = QA ]
	[ "$(field TASK-001 pr_number)" = 1 ]
	[ "$(field TASK-001 pr_head)" != "$first" ]
	[ "$(pr_field 1 head.sha)" = "$(field TASK-001 pr_head)" ]
	[ "$(gitea_api GET "/repos/$GITEA_REPO/pulls?state=all" | jq length)" = 1 ]

	# The review was on the old head: it does not send the new one back.
	run git burl sync
	assert_success
	assert_output_contains "TASK-001 pull request #1: open"
	[ "$(bucket_of TASK-001)" = QA ]
	gitea_api POST "/repos/$GITEA_REPO/pulls/1/reviews" '{"event":"APPROVED","body":"good"}' "$GITEA_REVIEWER_TOKEN" >/dev/null
	gitea_merge 1 rebase
	run git burl sync
	assert_output_contains "TASK-001 pull request #1: merged"
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "pr_merge: auto asks the forge to merge once the checks passed (none required here); the next sync records DONE" {
	set_config pr_merge auto
	git burl trust --yes >/dev/null
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	run git burl approve TASK-001
	assert_success
	assert_output_contains "stays in QA until its checks pass and burl asks the forge to merge it (checks: required)"
	[ "$(pr_field 1 merged)" = false ]
	run git burl sync
	assert_output_contains "TASK-001 pull request #1: open (checks: success); checks passed; asked gitea to merge it"
	[ "$(pr_field 1 merged)" = true ]
	run git burl sync
	assert_output_contains "TASK-001 pull request #1: merged"
	[ "$(bucket_of TASK-001)" = DONE ]
}

@test "two clones settling the same pull requests record each DONE once" {
	set_config workflow_auto_push true
	git burl sync >/dev/null
	for n in 1 2; do
		git burl add "Part $n" --affects "src/part$n.go" >/dev/null
		submitted "$(printf 'TASK-%03d' "$n")" "src/part$n.go" "package src // part $n" >/dev/null
	done
	git burl approve --all >/dev/null
	other="$BATS_TEST_TMPDIR/other"
	git clone -q "${GITEA_URL}$GITEA_REPO.git" "$other" 2>/dev/null
	(cd "$other" && git burl init >/dev/null 2>&1 && git burl trust --yes >/dev/null)
	[ "$(REPO=$other bucket_of TASK-001)" = QA ]
	gitea_merge 1 squash
	gitea_merge 2 merge

	git burl sync >"$BATS_TEST_TMPDIR/a.out" 2>&1 &
	a=$!
	(cd "$other" && git burl sync >"$BATS_TEST_TMPDIR/b.out" 2>&1) &
	b=$!
	wait "$a" || { cat "$BATS_TEST_TMPDIR/a.out"; false; }
	wait "$b" || { cat "$BATS_TEST_TMPDIR/b.out"; false; }
	git burl sync >/dev/null
	(cd "$other" && git burl sync >/dev/null)
	for r in "$REPO" "$other"; do
		[ "$(REPO=$r bucket_of TASK-001)" = DONE ]
		[ "$(REPO=$r bucket_of TASK-002)" = DONE ]
		[ "$(all_events "$r" | jq -r 'select(.action == "pr_merged") | .task' | sort | tr '\n' ' ')" = "TASK-001 TASK-002 " ]
	done
	# The remote's workflow branch holds one DONE commit per task.
	git fetch -q origin burl
	[ "$(git log --format=%s origin/burl | grep -c "^burl: pr_merged")" = 2 ]
	# Each clone holds the landing record that DONE names (DESIGN §22).
	for r in "$REPO" "$other"; do
		(cd "$r" && git fetch -q origin && git burl verify "$(git rev-parse origin/main~2)..origin/main") || return 1
	done
}

@test "a pull request's branch the forge deleted as it merged is gone already: sync lands the task DONE, says so in burl's words, with no raw git error" {
	git burl add "Jump high" --affects src/jump.go >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("high")')" >/dev/null
	git burl approve TASK-001 >/dev/null
	branch=$(git burl show TASK-001 --json | jq -r .task.branch)
	[ -n "$(git ls-remote origin "refs/heads/$branch")" ]
	gitea_merge 1 rebase delete
	[ -z "$(git ls-remote origin "refs/heads/$branch")" ]

	run git burl sync
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	assert_output_contains "$branch was deleted from origin already"
	refute_output_contains "stale info"
	refute_output_contains "could not delete"
	refute_output_contains "warning"
	! git rev-parse -q --verify "refs/remotes/origin/$branch"
}
