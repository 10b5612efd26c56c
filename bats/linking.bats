#!/usr/bin/env bats
# Each verb binary links only its own verb (issue 12): no registry pulls
# every verb into every binary, so the hook, which runs on every commit,
# carries none of the others.

load helpers

setup() {
	SRC="$BATS_TEST_DIRNAME/.."
	command -v go >/dev/null || skip "go is not installed"
}

@test "git-burl-hook holds the hook verb and no other verb" {
	(cd "$SRC" && go build -o "$BATS_TEST_TMPDIR/hook" ./cmd/git-burl-hook)
	syms=$(go tool nm "$BATS_TEST_TMPDIR/hook")
	grep -q 'burl/pkg/hook.(\*hookCmd).Run' <<<"$syms"
	grep -q 'burl/pkg/taskgate.CheckRange' <<<"$syms"
	# The hook's verb lives in pkg/hook: nothing of pkg/verb, where every
	# other verb is, nor of the packages only those verbs use. (pkg/agents
	# it does link: the gate box reads agents.yaml's sandbox_write and
	# gate_network wherever a gate runs, the hooks too; DESIGN §24.)
	for pkg in verb doctor watch conflict; do
		! grep -q "burl/pkg/$pkg\." <<<"$syms" || { echo "git-burl-hook links pkg/$pkg" >&2; false; }
	done
	# Nothing the hook runs needs crypto/rand (the FIPS module comes in
	# only through crypto/sha256's package init: the workflow package
	# names the trust store's commands, and writes tree objects).
	! grep -q 'crypto/rand\.' <<<"$syms" || { echo "git-burl-hook links crypto/rand" >&2; false; }
	run go version -m "$BATS_TEST_TMPDIR/hook"
	refute_output_contains "bubbletea"
	refute_output_contains "lipgloss"
}

@test "the installed verbs are not one program copied: their sizes differ" {
	dir=$(git burl --exec-path)
	[ "$(stat -c %s "$dir"/git-burl-* | sort -u | wc -l)" -gt 10 ]
	[ "$(stat -c %s "$(command -v git-burl)")" -lt "$(stat -c %s "$dir/git-burl-hook")" ]
}

@test "the MCP SDK is linked into git-burl-mcp and no other binary" {
	dir=$(git burl --exec-path)
	run go version -m "$dir/git-burl-mcp"
	assert_output_contains "github.com/modelcontextprotocol/go-sdk"
	for b in "$(command -v git-burl)" "$dir"/git-burl-*; do
		[ "$(basename "$b")" = git-burl-mcp ] && continue
		run go version -m "$b"
		refute_output_contains "modelcontextprotocol" || { echo "$b links the MCP SDK" >&2; false; }
	done
}
