#!/usr/bin/env bats
# The README's tour and agents section are what `make demo` runs (issue 25):
# every command a newcomer types from them, in order, is a command the
# demo ran, and nothing the demo runs is missing from the README. A README
# edit that the demo does not follow (or the other way round) fails here.

load helpers
load lifecycle

# commands FILE: the "$ " lines of a transcript, trailing comments and
# spaces dropped.
commands() {
	grep '^\$ ' "$1" | sed 's/[[:space:]]\{2,\}#.*$//; s/[[:space:]]*$//'
}

@test "the README's tour and agents section are exactly the commands make demo runs, in order" {
	SRC="$BATS_TEST_DIRNAME/.."
	"$SRC/contrib/demo.sh" >"$BATS_TEST_TMPDIR/demo.txt" 2>&1
	# The README from its tour to the end of the agents section.
	sed -n '/^## A five-minute tour/,/^### Only commands you trusted run/p' "$SRC/README.md" >"$BATS_TEST_TMPDIR/readme.txt"
	diff <(commands "$BATS_TEST_TMPDIR/readme.txt") <(commands "$BATS_TEST_TMPDIR/demo.txt")
	# The tour's cd into the worktree before the commit, and the commit and
	# trust of agents.yaml, are there (the steps a literal reader needs).
	commands "$BATS_TEST_TMPDIR/readme.txt" | grep -qx '\$ cd .worktrees/task-001-implement-jump'
	commands "$BATS_TEST_TMPDIR/readme.txt" | grep -qx "\\$ git -C .burl commit -q -m 'agents.yaml: one coder'"
	commands "$BATS_TEST_TMPDIR/readme.txt" | grep -qx '\$ git burl trust --yes'
	# The files the reader writes are shown as the demo wrote them.
	for f in "/tmp/demo/agent.sh" ".burl/.workflow/agents.yaml"; do
		diff <(sed -n "/^\\\$ cat ${f//\//\\/}\$/,/^\$/p" "$BATS_TEST_TMPDIR/readme.txt") \
			<(sed -n "/^\\\$ cat ${f//\//\\/}\$/,/^\$/p" "$BATS_TEST_TMPDIR/demo.txt")
	done
}

@test "the README's pull-request tour is what make demo-pr runs against a real Gitea" {
	SRC="$BATS_TEST_DIRNAME/.."
	"$SRC/contrib/forge/gitea.sh" build >/dev/null 2>&1 || skip "Gitea could not be built on this machine (contrib/forge/gitea.sh build)"
	"$SRC/contrib/demo-pr.sh" >"$BATS_TEST_TMPDIR/demo.txt" 2>&1
	sed -n '/^## Landing through pull requests/,/^## A live board/p' "$SRC/README.md" >"$BATS_TEST_TMPDIR/readme.txt"
	# The README shows the tour up to sync; the demo goes on to the log.
	diff <(commands "$BATS_TEST_TMPDIR/readme.txt" | grep -v '^\$ contrib/\|^\$ make ') \
		<(commands "$BATS_TEST_TMPDIR/demo.txt" | grep -v '^\$ git burl log')
	grep -q "Opened pull request #1 for TASK-001: http://127.0.0.1:3000/burl/game/pulls/1" "$BATS_TEST_TMPDIR/demo.txt"
	grep -q "TASK-001 pull request #1: merged as [0-9a-f]\{10\} (ancestry); TASK-001 → DONE" "$BATS_TEST_TMPDIR/demo.txt"
	grep -q "^Local main fast-forwarded to origin/main ([0-9a-f]\{10\}): 1 commit(s)$" "$BATS_TEST_TMPDIR/demo.txt"
}

@test "the tour's commit step works in a newcomer's repository, where the task's file is new and the checkout has untracked files" {
	SRC="$BATS_TEST_DIRNAME/.."
	# The tour's commands from the edit to the submit, as a reader types them.
	sed -n '/^## A five-minute tour/,/^## Let burl run your agents/p' "$SRC/README.md" | commands /dev/stdin |
		sed -n '/^\$ \$EDITOR src\/jump.go/,/^\$ git burl submit$/p' | sed '1d; $d; s/^\$ //' >"$BATS_TEST_TMPDIR/steps.sh"
	grep -q 'git commit' "$BATS_TEST_TMPDIR/steps.sh"
	new_burl_repo
	# A repository that has no src/jump.go yet.
	git rm -q src/jump.go && git commit -q -m "no jump yet"
	echo "scratch" >notes.txt
	git burl add "Implement jump" --affects src/jump.go >/dev/null
	wt=$(git burl claim TASK-001 | tail -n 1)
	cd "$wt"
	mkdir -p src && printf 'package src\n\nfunc Jump() int { return 3 }\n' >src/jump.go
	run bash -euo pipefail "$BATS_TEST_TMPDIR/steps.sh"
	assert_success
	run git burl submit
	assert_success
	git show --stat HEAD | grep -q 'src/jump.go'
}

# readme_block HEADING: the first ```sh block under the README's section
# whose heading line starts with HEADING, as a newcomer would copy it.
readme_block() {
	awk -v h="$1" 'index($0, h) == 1 { s = 1; next } s && /^## / { exit } s && /^```sh$/ { b = 1; next } b && /^```$/ { exit } b { print }' \
		"$BATS_TEST_DIRNAME/../README.md"
}

@test "the README's install block is the two commands, and nothing else" {
	diff <(readme_block "## Install and test" | sed 's/[[:space:]]*#.*$//') <(printf './install.sh\nmake test\n')
}

@test "the README's by-hand pull-request setup works when followed literally, up to a reviewer's merge" {
	SRC=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	"$SRC/contrib/forge/gitea.sh" build >/dev/null 2>&1 || skip "Gitea could not be built on this machine (contrib/forge/gitea.sh build)"
	# The Gitea built once per machine, found from the test's own HOME too.
	export BURL_FORGE_CACHE=${BURL_FORGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/burl-forge}
	setup_isolated_git
	FORGE_DIR="$BATS_TEST_TMPDIR/forge"
	# The block's /tmp/ places, in this test's own folder.
	block=$(readme_block "## Landing through pull requests" | sed "s|/tmp/|$BATS_TEST_TMPDIR/|g")
	[ -n "$block" ]
	cd "$SRC"
	run bash -c "set -euo pipefail
$block
printf 'landing: pr\nforge: gitea\npr_merge: none\n' >>.burl/.workflow/config.yaml
git -C .burl commit -q -m 'land through pull requests' .workflow/config.yaml
git burl trust --yes >/dev/null
git burl add 'Implement jump' --affects src/jump.go >/dev/null
wt=\$(git burl claim TASK-001 | tail -1)
(cd \"\$wt\" && mkdir -p src && echo 'jump' >src/jump.go && git add -A && git commit -q -m 'Jump' && git burl submit >/dev/null)
git burl approve TASK-001
# The reviewer, a collaborator since the block, merges on the forge.
curl -sf -X POST -H \"Authorization: token \$GITEA_REVIEWER_TOKEN\" -H 'Content-Type: application/json' \
	\"\${GITEA_URL}api/v1/repos/burl/game/pulls/1/merge\" -d '{\"Do\":\"rebase\"}'
git burl sync
git burl status"
	"$SRC/contrib/forge/gitea.sh" stop "$FORGE_DIR"
	assert_success
	assert_output_contains "Opened pull request #1 for TASK-001"
	assert_output_contains "TASK-001 → DONE"
	assert_output_contains "DONE 1"
}

@test "the README's scope commands run as written on a READY task" {
	new_burl_repo
	git burl add "Implement jump" --affects src/jump.go >/dev/null
	git burl add "Add a run speed" --affects src/run.go >/dev/null
	run bash -euo pipefail -c "$(readme_block "## Scope, gates and landing")"
	assert_success
	# The first widened the scope, the second took that back for a glob.
	git burl show TASK-002 --json | jq -e '.task.affects_globs == ["src/run/**"] and (.task.affects | index("src/audio.go") | not)'
	[ "$(find .burl/.workflow/events -name '*.ndjson' -exec cat {} + | grep -c '"action":"scope"')" = 2 ]
}

@test "removing burl from a repository, with the README's commands, leaves no trace of it" {
	new_burl_repo
	git burl hooks install >/dev/null
	git burl add "Feature" --affects f.txt >/dev/null 2>&1
	git burl claim TASK-001 >/dev/null
	# The README's block, its "each of them" line for the one task here.
	block=$(readme_block "## Removing burl from a repository" |
		sed 's|^git worktree remove .worktrees/task-001-\.\.\.|git worktree remove --force .worktrees/task-001-feature|; s|^git branch -D burl |git branch -D burl task-001-feature |; /^git push origin --delete/d; /^git config --unset/d')
	run bash -euo pipefail -c "$block"
	assert_success
	! grep -q burl .git/info/exclude || false
	[ "$(git worktree list --porcelain | grep -c '^worktree')" = 1 ]
	[ -z "$(ls "$(git rev-parse --git-path hooks)" | grep -v '\.sample$')" ]
	[ -z "$(git status --porcelain)" ]
	! git rev-parse -q --verify burl >/dev/null || false
}

@test "the README's check of what landed runs as written in a reviewer's fresh clone" {
	load lifecycle
	load verify
	new_burl_repo
	set_config build_command true
	landed 1
	landed 2
	commit_file hotfix.txt "fix" "hotfix"
	hand=$(git rev-parse --short=10 HEAD)
	git burl sync >/dev/null
	git clone -q "$ORIGIN" "$BATS_TEST_TMPDIR/reviewer" 2>/dev/null
	cd "$BATS_TEST_TMPDIR/reviewer"
	block=$(readme_block "## Checking what landed" | sed "s/4c1d2e3f5a/$hand/")
	[ -n "$block" ]
	run bash -uo pipefail -c "$block"
	assert_success
	# The whole history: the hotfix is ✗ (exit 2 for that line), the rest ✓.
	assert_output_contains "✗ $hand \"hotfix\": a commit by Burl Test <test@burl.invalid> that did not come through burl"
	assert_output_contains "TASK-002 task 2 — approve; gates scope, stubs, build; approved by tester@bats"
	assert_output_contains "5 commit(s) of main"
	assert_output_contains "4 landed by burl, 1 not landed by burl, 0 whose record does not match"
	# The range with the hotfix allowed, and the record as JSON.
	assert_output_contains "3 commit(s) of main"
	assert_output_contains "2 landed by burl, 1 not landed by burl, 0 whose record does not match, 1 allowed"
	assert_output_contains '"burl_record": 1'
	assert_output_contains '"task": "TASK-002"'
}
