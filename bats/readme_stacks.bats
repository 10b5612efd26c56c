#!/usr/bin/env bats
# The README's Stacks section is what `make demo-stack` runs
# (contrib/demo-stack.sh): the same commands in the same order, and the
# outputs it shows of status, approve --all, the log and main's files are
# the demo's, so the section cannot silently rot.

load helpers

# commands FILE: the "$ " lines of a transcript, trailing comments and
# spaces dropped.
commands() {
	grep '^\$ ' "$1" | sed 's/[[:space:]]\{2,\}#.*$//; s/[[:space:]]*$//'
}

# block FILE CMD: the output CMD printed in the transcript FILE, blank
# lines left out.
block() {
	awk -v c="\$ $2" '$0 == c { s = 1; next } s && /^(\$ |```)/ { exit } s && NF { print }' "$1"
}

@test "the README's Stacks section is exactly what make demo-stack runs, outputs included" {
	SRC="$BATS_TEST_DIRNAME/.."
	"$SRC/contrib/demo-stack.sh" >"$BATS_TEST_TMPDIR/demo.txt" 2>&1
	sed -n '/^## Stacks$/,/^## Scope, gates and landing/p' "$SRC/README.md" >"$BATS_TEST_TMPDIR/readme.txt"
	[ "$(commands "$BATS_TEST_TMPDIR/readme.txt" | wc -l)" -gt 10 ]
	diff <(commands "$BATS_TEST_TMPDIR/readme.txt") <(commands "$BATS_TEST_TMPDIR/demo.txt")
	for c in "git burl status" "git burl approve --all" "git log --oneline main" "git ls-tree --name-only main src/"; do
		diff <(block "$BATS_TEST_TMPDIR/readme.txt" "$c") <(block "$BATS_TEST_TMPDIR/demo.txt" "$c")
	done
	# The point of it: the file the parent added and the child deleted
	# stays deleted after the parent's squash.
	! grep -qx src/helper.go <(block "$BATS_TEST_TMPDIR/demo.txt" "git ls-tree --name-only main src/")
}
