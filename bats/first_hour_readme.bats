#!/usr/bin/env bats
# The README's tour and agents section are what `make demo` runs (issue 25):
# every command a newcomer types from them, in order, is a command the
# demo ran, and nothing the demo runs is missing from the README. A README
# edit that the demo does not follow (or the other way round) fails here.

load helpers

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
}
