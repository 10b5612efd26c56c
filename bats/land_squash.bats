#!/usr/bin/env bats
# merge_strategy: squash (DESIGN §26): one commit per task on main, its
# subject the task's title and ID, its body the objective, trailers
# Burl-Task and Burl-Agent; authored by whoever did the work, committed by
# the approver; the landing record on it and git burl verify ✓ — by
# approve, approve --all and watch's queue, and after a crash, by doctor.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch
load queue

# squash_repo: a burl repository landing by squash, its approver a
# different person from the one who does the work.
squash_repo() {
	new_burl_repo
	set_config merge_strategy squash
	set_config max_parallel 0
}

# worked ID FILE: claim ID as a human (Hanna) and commit FILE twice in
# its worktree; prints the worktree.
worked() {
	local wt
	wt=$(claim_wt "$1") || return 1
	(
		cd "$wt" || exit 1
		export GIT_AUTHOR_NAME="Hanna Human" GIT_AUTHOR_EMAIL=hanna@example.org GIT_COMMITTER_NAME="Hanna Human" GIT_COMMITTER_EMAIL=hanna@example.org
		commit_file "$2" "first draft" "draft $2" && commit_file "$2" "final $2" "finish $2"
	) >/dev/null || return 1
	echo "$wt"
}

# squashed REV ID TITLE OBJECTIVE: REV is task ID's squash commit, on main.
squashed() {
	local rev=$1
	[ "$(git log -1 --format=%s "$rev")" = "$3 ($2)" ] || { echo "subject: $(git log -1 --format=%s "$rev")" >&2; return 1; }
	git log -1 --format=%b "$rev" | grep -qxF "$4" || { echo "body: $(git log -1 --format=%b "$rev")" >&2; return 1; }
	[ "$(git log -1 --format='%(trailers:key=Burl-Task,valueonly)' "$rev" | sed '/^$/d')" = "$2" ] || return 1
	[ -n "$(git log -1 --format='%(trailers:key=Burl-Agent,valueonly)' "$rev" | sed '/^$/d')" ] || { echo "no Burl-Agent trailer" >&2; return 1; }
	[ "$(git log -1 --format='%cn <%ce>' "$rev")" = "Burl Test <test@burl.invalid>" ] || { echo "committer: $(git log -1 --format='%cn <%ce>' "$rev")" >&2; return 1; }
	[ "$(git rev-list --count --merges main)" = 0 ]
}

@test "squash: approve lands a task of two commits as one commit, authored by its worker, committed by the approver, verified" {
	squash_repo
	git burl add "Add the login form" --affects src/login.go --description "Users can log in with a password." >/dev/null
	worked TASK-001 src/login.go >/dev/null
	git burl submit TASK-001 >/dev/null
	commit_file other.txt other "main moves on"
	before=$(git rev-parse main)
	run git burl approve TASK-001
	assert_success
	# One commit on top of what main was, holding the task's final tree.
	[ "$(git rev-list --count "$before..main")" = 1 ]
	[ "$(git rev-parse main^)" = "$before" ]
	[ "$(git show main:src/login.go)" = "final src/login.go" ]
	git show main:other.txt >/dev/null
	squashed main TASK-001 "Add the login form" "Users can log in with a password."
	[ "$(git log -1 --format='%an <%ae>' main)" = "Hanna Human <hanna@example.org>" ]
	[ "$(git log -1 --format='%(trailers:key=Burl-Agent,valueonly)' main | sed '/^$/d')" = "tester@bats" ]
	! git log --format=%s main | grep -q '^draft'
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(field TASK-001 merged_sha)" = "$(git rev-parse main)" ] || [ "$(jq -r '.details.merged_sha' <(grep '"action":"approve"' <(all_events)))" = "$(git rev-parse main)" ]
	# The landing record is on it and says it was a squash.
	[ "$(git notes --ref=burl show main | jq -r '.landing.merge_style')" = squash ]
	[ "$(git notes --ref=burl show main | jq -r '.commits | length')" = 1 ]
	# (main's own commit before it is a hand commit: not burl's.)
	run git burl verify --json main~1..main
	assert_success
	[ "$(jq -r '.commits[-1].status' <<<"$output")" = landed ]
	[ "$(jq -r '.commits[-1].task' <<<"$output")" = TASK-001 ]
	# The branch and worktree are gone, as after any landing.
	! git rev-parse -q --verify task-001-add-the-login-form >/dev/null
}

@test "squash: approve --all squashes each task onto the one before it" {
	squash_repo
	for i in 1 2; do
		git burl add "Feature $i" --affects "f$i.txt" --description "Feature $i works." >/dev/null
		worked "$(printf 'TASK-%03d' "$i")" "f$i.txt" >/dev/null
		git burl submit "$(printf 'TASK-%03d' "$i")" >/dev/null
	done
	before=$(git rev-parse main)
	run git burl approve --all --json
	assert_success
	[ "$(jq -r '.approved | join(",")' <<<"$output")" = TASK-001,TASK-002 ]
	[ "$(git rev-list --count "$before..main")" = 2 ]
	squashed main~1 TASK-001 "Feature 1" "Feature 1 works."
	squashed main TASK-002 "Feature 2" "Feature 2 works."
	[ "$(git rev-parse main~2)" = "$before" ]
	[ "$(git show main:f1.txt)" = "final f1.txt" ]
	[ "$(git show main:f2.txt)" = "final f2.txt" ]
	for rev in main~1 main; do
		[ "$(git notes --ref=burl show "$rev" | jq -r '.landing.kind + " " + .landing.merge_style')" = "queue squash" ]
	done
	run git burl verify
	assert_success
}

@test "squash: watch's queue lands an agent's work as one commit authored by the agent (agents.yaml author:, else its name)" {
	watch_repo
	set_config merge_strategy squash
	git burl add "Feature one" --affects-glob 'src/f1/**' --description "One is there." >/dev/null
	git burl add "Feature two" --affects-glob 'src/f2/**' --description "Two is there." >/dev/null
	agent good 'n=$(echo "$BURL_TASK" | sed "s/TASK-0*//"); mkdir -p "src/f$n"; echo "draft" >"src/f$n/a.txt"; git add -A; git commit -q -m draft; echo "feature $n" >"src/f$n/a.txt"'
	agents_yaml "auto_approve: true
agents:
  - name: bot
    command: [\"$AGENTS/good\"]
    max_parallel: 1
    timeout: 30s
  - name: writer
    command: [\"$AGENTS/good\"]
    author: Writer Bot <writer@agents.example>
    max_parallel: 1
    timeout: 30s"
	before=$(git rev-parse main)
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_success
	[ "$(jq -r '.done | length' <<<"$output")" = 2 ]
	[ "$(git rev-list --count "$before..main")" = 2 ]
	for rev in main~1 main; do
		id=$(git log -1 --format='%(trailers:key=Burl-Task,valueonly)' "$rev" | sed '/^$/d')
		ag=$(git log -1 --format='%(trailers:key=Burl-Agent,valueonly)' "$rev" | sed '/^$/d')
		case $ag in
		bot) [ "$(git log -1 --format='%an <%ae>' "$rev")" = "bot <test@burl.invalid>" ] ;;
		writer) [ "$(git log -1 --format='%an <%ae>' "$rev")" = "Writer Bot <writer@agents.example>" ] ;;
		*) echo "Burl-Agent: $ag" >&2 && false ;;
		esac
		[ "$(git notes --ref=burl show "$rev" | jq -r '.agent.name')" = "$ag" ]
		[ "$(git log -1 --format='%cn' "$rev")" = "Burl Test" ]
		git log -1 --format=%s "$rev" | grep -q "($id)\$"
		[ "$(git show "$rev:src/f${id#TASK-00}/a.txt")" = "feature ${id#TASK-00}" ]
	done
	run git burl verify
	assert_success
}

@test "squash: an approve killed after it moved main is finished by doctor --repair, and verify passes" {
	squash_repo
	git burl add "Feature" --affects f.txt --description "It is there." >/dev/null
	worked TASK-001 f.txt >/dev/null
	git burl submit TASK-001 >/dev/null
	commit_file other.txt other "main moves on"
	run env BURL_CRASH_AFTER=approve:merge git burl approve TASK-001
	[ "$status" -eq 137 ]
	[ "$(bucket_of TASK-001)" = QA ]
	squashed main TASK-001 "Feature" "It is there."
	run git burl doctor --json
	[ "$status" -eq 2 ]
	[ "$(jq -r '[.findings[].kind] | index("interrupted_approve") != null' <<<"$output")" = true ]
	run git burl doctor --repair --force
	assert_success
	run git burl doctor
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(git log --format=%s main | grep -cx 'Feature (TASK-001)')" = 1 ]
	[ "$(git notes --ref=burl show main | jq -r '.landing.merge_style + " " + (.landing.recovered | tostring)')" = "squash true" ]
	run git burl verify main~1..main
	assert_success
}

@test "squash: an approve killed after its squash, or after any of its git commands, is redone or finished" {
	squash_repo
	git burl add "Feature" --affects f.txt --description "It is there." >/dev/null
	worked TASK-001 f.txt >/dev/null
	git burl submit TASK-001 >/dev/null
	commit_file other.txt other "main moves on"
	snap="$BATS_TEST_TMPDIR/snap"
	mkdir -p "$snap"
	cp -a "$REPO" "$ORIGIN" "$snap/"
	total=$(BURL_TRACE=1 git burl approve TASK-001 2>&1 >/dev/null | grep -c '^\[.*\] git ')
	points=("BURL_CRASH_AFTER=approve:squash")
	for ((n = 1; n <= total; n++)); do points+=("BURL_CRASH_AT_GIT=$n"); done
	for p in "${points[@]}"; do
		cd / && rm -rf "$REPO" "$ORIGIN" && cp -a "$snap/repo" "$snap/origin.git" "$BATS_TEST_TMPDIR/" && cd "$REPO"
		run env "$p" git burl approve TASK-001
		[ "$status" -eq 137 ] || [ "$status" -eq 0 ] || { echo "$p: exit $status: $output" >&2; false; }
		run git burl doctor --repair --force
		[ "$status" -eq 0 ] || { echo "$p: repair: $output" >&2; false; }
		if [ "$(bucket_of TASK-001)" != DONE ]; then
			run git burl approve TASK-001
			[ "$status" -eq 0 ] || { echo "$p: approve again: $output" >&2; false; }
		fi
		[ "$(bucket_of TASK-001)" = DONE ] || { echo "$p: $(bucket_of TASK-001)" >&2; false; }
		[ "$(git log --format=%s main | grep -cx 'Feature (TASK-001)')" = 1 ] || { echo "$p: $(git log --format=%s main)" >&2; false; }
		[ "$(git show main:f.txt)" = "final f.txt" ]
		run git burl doctor
		[ "$status" -eq 0 ] || { echo "$p: doctor: $output" >&2; false; }
		run git burl verify main~1..main
		[ "$status" -eq 0 ] || { echo "$p: verify: $output" >&2; false; }
	done
}
