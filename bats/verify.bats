#!/usr/bin/env bats
# DESIGN §22: every commit burl lands carries a landing record (a note in
# refs/notes/burl whose sha256 the workflow branch records), and git burl
# verify checks main's history against them in any clone, offline.

setup() {
	load helpers
	load lifecycle
	load verify
	new_burl_repo
}

@test "tasks landed by hand-run verbs verify ✓ in a fresh clone with the network gone; a hand commit is ✗ and --allow accepts it" {
	landed 1
	landed 2
	commit_file notes.txt "by hand" "a hand commit"
	hand=$(git rev-parse HEAD)
	run git burl sync
	assert_success
	assert_output_contains "refs/notes/burl"

	verified_clone "$BATS_TEST_TMPDIR/fresh"
	run git burl verify
	assert_failure 2
	# Newest first: the hand commit, then each task's two commits.
	[ "${lines[0]}" = "✗ ${hand:0:10} \"a hand commit\": a commit by Burl Test <test@burl.invalid> that did not come through burl" ]
	[[ ${lines[1]} == "✓ "*" TASK-002 task 2 — approve; gates scope, stubs; approved by tester@bats" ]]
	[[ ${lines[4]} == "✓ "*" TASK-001 task 1 — approve; gates scope, stubs; approved by tester@bats" ]]
	assert_output_contains "5 commit(s) of main"
	assert_output_contains "4 landed by burl, 1 not landed by burl, 0 whose record does not match"
	assert_output_contains "git burl verify --allow REV"

	run git burl verify --allow "$hand"
	assert_success
	assert_output_contains "(allowed)"
	assert_output_contains "1 allowed"

	# An agent's commit pushed straight to main is named as such.
	git commit -q --allow-empty -m "agent work" -m "Burl-Task: TASK-009"
	run git burl verify --allow "$hand" --json
	assert_failure 2
	jq -e '.commits[0] | .status == "not_landed" and .looks_like == "agent_push" and (.reason | contains("Burl-Task: TASK-009"))' <<<"$output"
	git reset -q --hard HEAD~

	run git burl verify --json
	assert_failure 2
	jq -e '.ok == true and .verified == false and .counts == {"landed":4,"not_landed":1,"mismatch":0,"allowed":0}' <<<"$output"
	jq -e --arg h "$hand" '.commits[0] | .commit == $h and .status == "not_landed" and .looks_like == "hand_commit"' <<<"$output"
	jq -e '.commits[1] | .status == "landed" and .task == "TASK-002" and .landing == "approve" and .gates == ["scope","stubs"] and .approved_by == "tester@bats"' <<<"$output"
	jq -e '.workflow_ref == "refs/remotes/gone/burl" and .notes_ref == "refs/notes/burl" and .main_branch == "main"' <<<"$output"

	# A range: the two commits of TASK-002 only.
	run git burl verify "$hand~3..$hand~"
	assert_success
	[ "${#lines[@]}" = 3 ]
	assert_output_contains "2 commit(s) of main"
}

@test "each record holds the task, the landed commits and tree, the gate results with their inputs' hashes, who approved and when" {
	set_config build_command "true"
	landed 1
	tip=$(git rev-parse main)
	note=$(note_of "$tip")
	# Both commits of the fast-forward carry the same record.
	[ "$(note_of "$tip~")" = "$note" ]
	jq -e --arg tip "$tip" --arg tree "$(git rev-parse "$tip^{tree}")" --arg first "$(git rev-parse "$tip~")" \
		'.burl_record == 1 and .task == "TASK-001" and .title == "task 1" and .landing.kind == "approve"
		 and .commits == [$first, $tip] and .tree == $tree and .main_branch == "main"
		 and .gates.scope.result == "pass" and .gates.stubs.result == "pass"
		 and .gates.build.result == "pass" and .gates.build.command == "true" and .gates.build.exit == 0
		 and .gates.verify.result == "none"
		 and .approved_by == "tester@bats" and .worker == "tester@bats" and .attempts == {"runs":0,"qa":0}' <<<"$note"
	# The inputs' hashes are what anyone recomputes from the task and config.
	scope=$(printf '%s' '{"affects":["f1.txt"],"affects_globs":[],"must_not_touch":[]}' | sha256sum | cut -d' ' -f1)
	build=$(printf '%s' '{"build_command":"true","build_timeout":"30m0s"}' | sha256sum | cut -d' ' -f1)
	[ "$(jq -r .gates.scope.inputs_sha256 <<<"$note")" = "$scope" ]
	[ "$(jq -r .gates.build.inputs_sha256 <<<"$note")" = "$build" ]
	# The approve event holds the note's sha256; one notes commit per landing.
	[ "$(all_events | jq -r 'select(.action == "approve") | .details.record_sha256')" = "$(printf '%s\n' "$note" | sha256sum | cut -d' ' -f1)" ]
	[ "$(git rev-list --count refs/notes/burl)" = 1 ]
	[ "$(git log -1 --format=%s refs/notes/burl)" = "burl: landing record of TASK-001 (2 commit(s))" ]
}

@test "a note edited by hand is !, and so is one that is not JSON, names a missing task or another tree, or is copied onto another commit" {
	landed 1
	landed 2
	landed 3
	landed 4
	landed 5
	c1=$(git rev-parse main~8) c2=$(git rev-parse main~6) c3=$(git rev-parse main~4) c4=$(git rev-parse main~2) c5=$(git rev-parse main)
	set_note "$c1" "$(note_of "$c1" | sed 's/"title":"task 1"/"title":"task one"/')"
	set_note "$c2" "not a record"
	set_note "$c3" "$(note_of "$c3" | sed 's/"task":"TASK-003"/"task":"TASK-099"/')"
	set_note "$c4" "$(note_of "$c4" | jq -c --arg t "$(git rev-parse "$c1^{tree}")" '.tree = $t')"
	set_note "$c5" "$(note_of "$c1~")"

	run git burl verify
	assert_failure 2
	assert_output_contains "! ${c1:0:10} TASK-001: the note was altered: its sha256"
	assert_output_contains "is not the one recorded when TASK-001 landed"
	assert_output_contains "! ${c2:0:10} \"edit f2.txt\": the note is not JSON"
	assert_output_contains "! ${c3:0:10} TASK-099: the record names TASK-099, which the workflow branch does not have"
	assert_output_contains "! ${c4:0:10} TASK-004: the commit's tree"
	assert_output_contains "is not the tree TASK-004 landed"
	assert_output_contains "! ${c5:0:10} TASK-001: the note is the record of other commits"
	assert_output_contains "5 landed by burl, 0 not landed by burl, 5 whose record does not match"
	refute_output_contains "✓ ${c1:0:10}"
}

@test "a record naming a task that is not DONE, or was cancelled, is !; a cancelled task's work on main is ✗, named as such" {
	landed 1
	git burl add "never landed" --affects f9.txt >/dev/null
	c=$(git rev-parse main)
	set_note "$c" "$(note_of "$c" | sed 's/"task":"TASK-001"/"task":"TASK-002"/')"
	run git burl verify
	assert_failure 2
	assert_output_contains "! ${c:0:10} TASK-002: the record names TASK-002, which is in READY, not DONE"

	# TASK-002 cancelled: named as cancelled, never counted landed.
	git burl cancel TASK-002 --reason "not needed" >/dev/null
	run git burl verify
	assert_failure 2
	assert_output_contains "TASK-002 was cancelled (resolution: cancelled): it did not land"
	refute_output_contains "✓ ${c:0:10}"

	# The work of a task cancelled in QA, merged into main by hand: named
	# as the cancelled task's, not as work waiting for --accept-landed.
	git burl add "given up" --affects f3.txt >/dev/null
	submitted TASK-003 f3.txt "given up" >/dev/null
	work=$(field TASK-003 submitted_sha)
	git burl cancel TASK-003 --reason "not needed" >/dev/null
	git merge -q --ff-only "$work"
	run git burl verify --json
	assert_failure 2
	jq -e --arg w "$work" '.commits[0] | .commit == $w and .status == "not_landed" and .looks_like == "cancelled_work" and (.reason | contains("TASK-003, which was cancelled"))' <<<"$output"
	run git burl verify
	assert_output_contains "✗ ${work:0:10}"
	refute_output_contains "accept-landed"
}

@test "a notes ref rewritten on the remote: the dropped note is ! in a fresh clone, and the next sync of a clone that has it puts it back" {
	set_config workflow_auto_push true
	set_config push_main_on_approve true
	landed 1
	landed 2
	keep=$(git rev-parse refs/notes/burl)
	# Someone rewrites the notes on the remote: TASK-002's record is gone.
	git update-ref refs/notes/burl "$keep~"
	git push -q -f origin refs/notes/burl
	git update-ref refs/notes/burl "$keep"

	verified_clone "$BATS_TEST_TMPDIR/fresh"
	run git burl verify
	assert_failure 2
	assert_output_contains "TASK-002: the workflow recorded TASK-002 landing as this commit"
	assert_output_contains "but refs/notes/burl has no note on it"

	cd "$REPO"
	run git burl sync
	assert_success
	verified_clone "$BATS_TEST_TMPDIR/fresh2"
	run git burl verify
	assert_success
	assert_output_contains "4 landed by burl"
}

@test "two clones landing at the same time: their notes merge by union, none is lost" {
	set_config workflow_auto_push true
	set_config push_main_on_approve true
	git burl sync >/dev/null
	for n in 1 2 3 4; do git burl add "task $n" --affects "f$n.txt" >/dev/null; done
	clone_repo "$BATS_TEST_TMPDIR/other"
	(cd "$BATS_TEST_TMPDIR/other" && git burl init >/dev/null)
	for n in 1 3; do submitted "TASK-00$n" "f$n.txt" "work $n" >/dev/null; done
	(cd "$BATS_TEST_TMPDIR/other" && REPO=$PWD && for n in 2 4; do submitted "TASK-00$n" "f$n.txt" "work $n" >/dev/null || exit 1; done)
	git burl approve --all >"$BATS_TEST_TMPDIR/a.out" 2>&1 &
	a=$!
	(cd "$BATS_TEST_TMPDIR/other" && git burl approve --all) >"$BATS_TEST_TMPDIR/b.out" 2>&1 &
	b=$!
	wait "$a" || true
	wait "$b" || true
	# What lost a race is approved on the next round.
	git burl approve --all >/dev/null 2>&1 || true
	(cd "$BATS_TEST_TMPDIR/other" && git burl approve --all >/dev/null 2>&1) || true

	verified_clone "$BATS_TEST_TMPDIR/fresh"
	run git burl verify
	assert_success
	assert_output_contains "4 landed by burl, 0 not landed by burl, 0 whose record does not match"
}

@test "a shallow clone, a range that does not exist, a clone without the notes or the workflow branch: each a clear error (exit 1), never ✓" {
	landed 1
	landed 2
	git burl sync >/dev/null

	git clone -q --depth 1 "file://$ORIGIN" "$BATS_TEST_TMPDIR/shallow" 2>/dev/null
	cd "$BATS_TEST_TMPDIR/shallow"
	git fetch -q --depth 1 origin refs/notes/burl:refs/notes/burl burl:refs/remotes/origin/burl
	run git burl verify
	assert_failure 1
	assert_output_contains "shallow"
	assert_output_contains "--unshallow"
	refute_output_contains "✓"
	# Inside what it has, a range is fine.
	run git burl verify HEAD~0..HEAD
	assert_success

	verified_clone "$BATS_TEST_TMPDIR/fresh"
	run git burl verify no-such-branch..main
	assert_failure 1
	assert_output_contains 'no commit "no-such-branch" in this clone'
	run git burl verify main...HEAD
	assert_failure 1
	assert_output_contains "A..B, not A...B"

	git update-ref -d refs/notes/burl
	run git burl verify
	assert_failure 1
	assert_output_contains "this clone has no landing records (refs/notes/burl)"
	assert_output_contains "git fetch origin refs/notes/burl:refs/notes/burl"

	git update-ref -d refs/remotes/gone/burl
	run git burl verify
	assert_failure 1
	assert_output_contains "no workflow branch burl"
}

@test "where the user's git signs commits, the notes and burl's commits are signed, and verify --signed fails on one that is not" {
	command -v ssh-keygen >/dev/null || skip "no ssh-keygen"
	ssh-keygen -q -t ed25519 -N '' -f "$HOME/key"
	printf 'test@burl.invalid %s\n' "$(cat "$HOME/key.pub")" >"$HOME/allowed"
	git config --global gpg.format ssh
	git config --global user.signingKey "$HOME/key.pub"
	git config --global gpg.ssh.allowedSignersFile "$HOME/allowed"
	git config --global commit.gpgSign true
	landed 1
	[ "$(git log -1 --format=%G? refs/notes/burl)" = G ]
	[ "$(git log -1 --format=%G? burl)" = G ]
	run git burl verify --signed
	assert_success
	assert_output_contains "signatures: 2 commit(s) checked, 0 without a good one"
	run git burl verify --signed --json
	jq -e '.signatures.checked == 2 and .signatures.bad == []' <<<"$output"

	# A note rewritten by someone who does not sign.
	git -c commit.gpgSign=false notes --ref=burl append -m "x" main
	run git burl verify --signed
	assert_failure 2
	assert_output_contains "refs/notes/burl"
	assert_output_contains "%G? N"
}

@test "an accepted hand merge, and interrupted approves finished by approve or by doctor --repair, verify ✓" {
	git burl add "merged by hand" --affects f1.txt >/dev/null
	submitted TASK-001 f1.txt "work 1" >/dev/null
	git merge -q --no-ff task-001-merged-by-hand -m "hand merge"
	run git burl approve --accept-landed TASK-001
	assert_success
	[ "$(note_of main | jq -r '.landing.kind + " " + (.commits | length | tostring)')" = "accept_landed 1" ]

	killed_approve TASK-002 f2.txt interrupted approve:merge
	run git burl approve TASK-002
	assert_success
	note_of main | jq -e '.landing == {"kind":"approve","recovered":true}'

	# An approve killed the same way, finished by doctor's repair instead.
	killed_approve TASK-003 f3.txt repaired approve:merge
	run git burl doctor --repair --force
	[ "$(bucket_of TASK-003)" = DONE ]
	note_of main | jq -e '.task == "TASK-003" and .landing == {"kind":"approve","recovered":true}'

	run git burl verify
	assert_success
	assert_output_contains "— accept_landed;"
	assert_output_contains "3 landed by burl, 0 not landed by burl"
}

@test "the contrib CI workflows (GitHub Actions, Gitea/Forgejo Actions) pass actionlint, which catches a broken one" {
	command -v go >/dev/null || skip "go is not installed: actionlint runs from the module proxy"
	SRC="$BATS_TEST_DIRNAME/.."
	lint() { (cd "$BATS_TEST_TMPDIR" && go run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12 "$@"); }
	lint -version >/dev/null 2>&1 || skip "actionlint could not be fetched from the module proxy here"
	run lint "$SRC/contrib/ci/github-verify.yml" "$SRC/contrib/ci/gitea-verify.yml"
	assert_success
	grep -q "git burl verify" "$SRC/contrib/ci/github-verify.yml"
	grep -q "refs/notes/burl:refs/notes/burl" "$SRC/contrib/ci/gitea-verify.yml"
	sed 's/runs-on: ubuntu-latest/runs-on: [ubuntu-latest/' "$SRC/contrib/ci/github-verify.yml" >"$BATS_TEST_TMPDIR/broken.yml"
	run lint "$BATS_TEST_TMPDIR/broken.yml"
	[ "$status" -ne 0 ]
}

@test "tasks landed by approve --all verify ✓; each record says queue and names the commit the batch's build ran on" {
	load queue
	set_config max_parallel 0
	printf '#!/bin/sh\necho build ok\n' >"$BATS_TEST_TMPDIR/build.sh"
	chmod +x "$BATS_TEST_TMPDIR/build.sh"
	set_config build_command "$BATS_TEST_TMPDIR/build.sh"
	for n in 1 2 3; do qa "$n" medium; done
	run git burl approve --all
	assert_success
	assert_output_contains "approve --all: 3 approved"
	top=$(git rev-parse main)
	note_of main~2 | jq -e --arg top "$top" '.landing.kind == "queue" and .gates.build.result == "pass" and .gates.build.on == $top'
	note_of main | jq -e '.landing.kind == "queue" and .gates.build.result == "pass" and (.gates.build | has("on") | not)'
	# One notes commit per landing: each is pushed with its own DONE.
	[ "$(git rev-list --count refs/notes/burl)" = 3 ]
	git burl sync >/dev/null
	verified_clone "$BATS_TEST_TMPDIR/fresh"
	run git burl verify
	assert_success
	assert_output_contains "✓ $(git rev-parse --short=10 "$top") TASK-003 task 3 — queue; gates scope, stubs, build; approved by tester@bats"
}

@test "a task landed by watch with a scripted agent verifies ✓, naming the agent, its preset and the model its run reported" {
	load watch
	set_config max_parallel 0
	git burl add "Agent work" --affects-glob "src/**" >/dev/null
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/claude" <<SH
#!/bin/sh
mkdir -p src && echo done >src/w.txt
cat "$BATS_TEST_DIRNAME/../pkg/usage/testdata/claude-code-result.json"
SH
	chmod +x "$BATS_TEST_TMPDIR/bin/claude"
	AGENTS="$BATS_TEST_TMPDIR/agents"
	agents_yaml "auto_approve: true
agents:
  - name: claude
    preset: claude-code"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	note_of main | jq -e '.landing.kind == "queue" and .agent == {"name":"claude","preset":"claude-code","model":"claude-sonnet-4-5-20250929"}
		and .attempts.runs == 1 and .cost.cost_usd == 0.0832 and .worker == "claude@'"$(hostname)"'"'
	git burl sync >/dev/null
	verified_clone "$BATS_TEST_TMPDIR/fresh"
	run git burl verify --json
	assert_success
	jq -e '.commits[0] | .status == "landed" and .agent == "claude" and .model == "claude-sonnet-4-5-20250929"' <<<"$output"
	run git burl verify
	assert_output_contains "agent claude (claude-sonnet-4-5-20250929)"
}

@test "an approve killed after logging its landing, before committing DONE: the note is there already, and once doctor commits the rest it verifies ✓" {
	killed_approve TASK-001 f1.txt killed approve:log
	note_of main | jq -e '.task == "TASK-001"'
	run git burl doctor --repair --force
	[ "$(bucket_of TASK-001)" = DONE ]
	run git burl verify
	assert_success
	assert_output_contains "TASK-001 killed"
}

@test "a landing record a kill left journalled rides with the next workflow commit, whichever it is; one on the notes ref already is dropped, not written twice" {
	git burl add "killed" --affects f1.txt >/dev/null
	submitted TASK-001 f1.txt "work on f1.txt" >/dev/null
	run env BURL_CRASH_AFTER=approve:log git burl approve TASK-001
	[ "$status" -eq 137 ]
	# The record moves with DONE's commit (one update-ref transaction,
	# DESIGN §28): journalled until then, not on the notes ref yet.
	[ -s .git/burl/landing-record ]
	run note_of main
	assert_failure
	cp .git/burl/landing-record "$BATS_TEST_TMPDIR/record"
	# Another commit comes first (lock clear logs its event): the record
	# goes with it, before any commit names it.
	for l in TASK-001 main workflow; do
		git burl lock clear "$l" --force >/dev/null 2>&1 || true
	done
	note_of main | jq -e '.task == "TASK-001"'
	[ ! -e .git/burl/landing-record ]
	notes=$(git rev-parse refs/notes/burl)
	run git burl doctor --repair --force
	[ "$(bucket_of TASK-001)" = DONE ]
	run git burl verify
	assert_success
	# A journal left by a kill after the commit that carried it: the next
	# commit finds it on the notes ref and only removes it.
	cp "$BATS_TEST_TMPDIR/record" .git/burl/landing-record
	git burl add "later still" >/dev/null
	[ ! -e .git/burl/landing-record ]
	[ "$(git rev-parse refs/notes/burl)" = "$notes" ]
	run git burl verify
	assert_success
}

@test "a landing-record journal that is not burl's: every commit warns and leaves it out, doctor names it and its repair removes it" {
	mkdir -p .git/burl
	echo "not a record" >.git/burl/landing-record
	run git burl add "later"
	assert_success
	assert_output_contains "landing-record is not a landing record burl wrote"
	run git burl doctor --json
	echo "$output" | jq -e '.findings | map(select(.kind == "bad_landing_record" and .path == ".git/burl/landing-record" and .repairable)) | length == 1'
	run git burl doctor --repair --force
	assert_success
	[ ! -e .git/burl/landing-record ]
	run git burl add "later still"
	assert_success
	! echo "$output" | grep -q "landing-record" || false
	run git burl doctor --json
	echo "$output" | jq -e '.findings | map(select(.kind == "bad_landing_record")) | length == 0'
}

@test "a journalled landing record whose notes ref moved meanwhile (a hand-run git notes, a sync's merge) is written again on top of it: neither note is lost" {
	git burl add "killed" --affects f1.txt >/dev/null
	submitted TASK-001 f1.txt "work on f1.txt" >/dev/null
	run env BURL_CRASH_AFTER=approve:log git burl approve TASK-001
	[ "$status" -eq 137 ]
	[ -s .git/burl/landing-record ]
	root=$(git rev-list --max-parents=0 main)
	git notes --ref=burl add -m "by hand" "$root"
	run git burl doctor --repair --force
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	note_of main | jq -e '.task == "TASK-001"'
	[ "$(note_of "$root")" = "by hand" ]
	[ ! -e .git/burl/landing-record ]
}
