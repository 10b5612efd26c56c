# Helpers for the tests of the board under tmux. Load after helpers.
# shellcheck shell=bash

# tm ARGS...: tmux on this test's own server (teardown: tm kill-server).
tm() { tmux -L "burl-$BATS_TEST_NUMBER-$$" "$@"; }

# pane / pane_has TEXT: what the first pane shows, and whether it shows TEXT.
pane() { tm capture-pane -p -t 0; }
pane_has() { pane | grep -qF -- "$1"; }
