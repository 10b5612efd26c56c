# Helpers for the tests of what a human sees: the board under tmux and the
# HTML report in headless chromium. Load after helpers.
# shellcheck shell=bash

# need TOOL: skip without TOOL on a developer's machine; CI installs every
# tool (.ci/run), so there a missing one fails.
need() {
	command -v "$1" >/dev/null && return 0
	[ -z "${CI:-}" ] || { echo "$1 is not installed; .ci/run installs it" >&2; return 1; }
	skip "$1 is not installed (.ci/run installs it)"
}

# tm ARGS...: tmux on this test's own server (teardown: tm kill-server).
tm() { tmux -L "burl-$BATS_TEST_NUMBER-$$" "$@"; }

# pane / pane_has TEXT: what the first pane shows, and whether it shows TEXT.
pane() { tm capture-pane -p -t 0; }
pane_has() { pane | grep -qF -- "$1"; }
