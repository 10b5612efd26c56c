#!/usr/bin/env bats
# The README's "CI and review" section (DESIGN §21): its GitHub Actions
# workflow is contrib/ci/checks.yml word for word, and the commands of its
# "Test" step are a check burl can wait for: they pass on a Go module whose
# tests pass and fail on one whose test fails. (make lint runs actionlint
# on contrib/ci/*.yml.)

SRC="$BATS_TEST_DIRNAME/.."

# step_commands FILE STEP: the lines of the run: | block of the step named
# STEP, unindented.
step_commands() {
	awk -v step="$2" '
		$0 ~ "- name: " step "$" { found = 1; next }
		found && /run: \|/ { inrun = 1; next }
		inrun && /^ *[^ ]/ { if (!ind) { match($0, /^ */); ind = RLENGTH } if (match($0, /^ */) && RLENGTH < ind) exit; print substr($0, ind + 1); next }
	' "$1"
}

# module DIR WANT: a Go module whose Jump returns WANT, tested for "high".
module() {
	mkdir -p "$1"
	printf 'module sample\n\ngo 1.22\n' >"$1/go.mod"
	printf 'package sample\n\nfunc Jump() string { return "%s" }\n' "$2" >"$1/jump.go"
	printf 'package sample\n\nimport "testing"\n\nfunc TestJump(t *testing.T) {\n\tif got := Jump(); got != "high" {\n\t\tt.Fatalf("Jump() = %%q", got)\n\t}\n}\n' >"$1/jump_test.go"
}

@test "the README's CI workflow is contrib/ci/checks.yml, and its Test step passes or fails with the project's tests" {
	# The README shows the file from its name on (its comments are the
	# section's words).
	diff <(sed -n '/^## CI and review/,/^## What the sandbox protects/p' "$SRC/README.md" | awk '/^```yaml$/ { n++; inb = 1; next } /^```$/ { inb = 0; next } inb && n == 2 { print }') \
		<(sed -n '/^name: ci$/,$p' "$SRC/contrib/ci/checks.yml")
	step_commands "$SRC/contrib/ci/checks.yml" Test >"$BATS_TEST_TMPDIR/test.sh"
	grep -qx 'go test ./...' "$BATS_TEST_TMPDIR/test.sh"
	module "$BATS_TEST_TMPDIR/good" high
	module "$BATS_TEST_TMPDIR/bad" low
	(cd "$BATS_TEST_TMPDIR/good" && bash -e "$BATS_TEST_TMPDIR/test.sh")
	run bash -c "cd '$BATS_TEST_TMPDIR/bad' && bash -e '$BATS_TEST_TMPDIR/test.sh'"
	[ "$status" -ne 0 ]
	[[ $output == *'Jump() = "low"'* ]]
}
