#!/usr/bin/env bats
# DESIGN §19: what a run must not reach outside the repository. burl's own
# git reads the global and system git config as they were when watch
# started, whatever an agent writes there (and what it wrote is put back);
# a run that replaces a directory on the way to burl's state (the trust
# store) stops every command of the watcher.

load helpers
load lifecycle
load watch

setup() {
	watch_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	MARK="$BATS_TEST_TMPDIR/ran"
}

# signer: an agent that asks every commit of the user to be signed by a
# program of its own, and leaves its work uncommitted for watch to commit.
signer() {
	printf '#!/bin/sh\necho "$@" >>"%s"\nexit 1\n' "$MARK" >"$AGENTS/gpg"
	chmod +x "$AGENTS/gpg"
	agent signer 'echo "$GIT_CONFIG_GLOBAL" >'"$AGENTS"'/global
git config --global commit.gpgSign true
git config --global gpg.program '"$AGENTS"'/gpg
mkdir -p src && echo ok >src/ok.txt'
}

pinned_case() {
	signer
	SANDBOX=$1 RETRIES=0 one_agent signer
	before=$(cat "$HOME/.gitconfig")
	run git burl watch --once --interval 100ms
	if [ "$1" = bwrap ]; then
		# HOME is read-only in the box (DESIGN §24): the write fails, and
		# the task lands without it.
		assert_success
		[ "$(cat "$AGENTS/global")" = "$HOME/.gitconfig" ]
		[ ! -e "$MARK" ]
		[ "$(cat "$HOME/.gitconfig")" = "$before" ]
		git burl add "Second" >/dev/null
		[ ! -e "$MARK" ]
		return
	fi
	assert_failure 2
	# The agent ran with the user's own global config, and wrote it.
	[ "$(cat "$AGENTS/global")" = "$HOME/.gitconfig" ]
	# Nothing of burl ran the program; the file is as it was.
	[ ! -e "$MARK" ]
	[ "$(cat "$HOME/.gitconfig")" = "$before" ]
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	all_events | grep '"action":"run_tampered"' | grep -q '\.gitconfig'
	grep -q 'blocked_reason: .*\.gitconfig' "$(task_file TASK-001)"
	# burl's next commits, by hand too, sign nothing.
	git burl add "Second" >/dev/null
	[ ! -e "$MARK" ]
}

@test "under bubblewrap an agent's commit.gpgSign and gpg.program in the global git config never run in burl's git; the run is run_tampered and the config put back" {
	need_bwrap
	pinned_case bwrap
}

@test "without a sandbox an agent's commit.gpgSign and gpg.program in the global git config never run in burl's git; the run is run_tampered and the config put back" {
	pinned_case none
}

@test "a file the global config includes, created by an agent, is found and removed; its gpg.program never runs" {
	printf '[include]\n\tpath = ~/extra.gitconfig\n[alias]\n\tmine = status\n' >>"$HOME/.gitconfig"
	agent includer 'printf "[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = '"$AGENTS"'/gpg\n" >"$HOME/extra.gitconfig"
mkdir -p src && echo ok >src/ok.txt'
	printf '#!/bin/sh\necho ran >>"%s"\nexit 1\n' "$MARK" >"$AGENTS/gpg"
	chmod +x "$AGENTS/gpg"
	SANDBOX=none RETRIES=0 one_agent includer
	run git burl watch --once --interval 100ms
	assert_failure 2
	[ ! -e "$MARK" ]
	[ ! -e "$HOME/extra.gitconfig" ]
	grep -q 'blocked_reason: .*extra.gitconfig' "$(task_file TASK-001)"
}

# swapper: an agent that renames the directory above the trust store
# aside and writes its own store, trusting a build_command nobody on this
# machine trusted; then does its work.
swapper() {
	local repo text
	repo=$(cd "$REPO/.git" && pwd -P)
	text="touch $MARK"
	MARK_CMD=$text
	agent swapper 'st=$HOME/.local/state
mv "$st" "$st.old"
mkdir -p "$st/burl"
h() { printf "%d:%s\n" "${#1}" "$1"; }
sha=$( { h "'"$repo"'"; h config.yaml:build_command; h "'"$text"'"; } | sha256sum | cut -d" " -f1)
printf "{\"sha256\":\"%s\",\"repo\":\"%s\",\"where\":\"config.yaml:build_command\",\"text\":\"%s\"}\n" "$sha" "'"$repo"'" "'"$text"'" >"$st/burl/trust"
mkdir -p src && echo ok >src/ok.txt'
}

swap_case() {
	swapper
	SANDBOX=$1 RETRIES=0 one_agent swapper
	# Pushed by someone, and not trusted here.
	sed -i "s|^build_command:.*|build_command: '$MARK_CMD'|" .burl/.workflow/config.yaml
	git -C .burl commit -qam "config: a build"
	run git burl watch --once --interval 100ms
	# The build_command nobody trusted never ran.
	[ ! -e "$MARK" ]
	# A sandbox may make the rename fail outright (every directory above
	# the store a mount point); where it happened, watch found it.
	if [ -e "$HOME/.local/state.old" ]; then
		assert_failure 2
		assert_output_contains "$HOME/.local/state (on the way to $HOME/.local/state/burl"
		assert_output_contains "watch runs no command until it is put back"
		grep -q '"action":"run_tampered"' <(all_events)
		[ "$(bucket_of TASK-001)" = DOING ]
		rm -rf "$HOME/.local/state" && mv "$HOME/.local/state.old" "$HOME/.local/state"
	fi
	# The store is the user's: the build_command is still untrusted.
	run git burl trust
	assert_failure 1
	assert_output_contains "build_command"
}

@test "under bubblewrap a run that renames the directory above the trust store aside gets no untrusted build_command run: the rename fails, or watch finds it and runs nothing" {
	need_bwrap
	swap_case bwrap
}

@test "without a sandbox a run that replaces the directory above the trust store fails, and watch then runs nothing: no untrusted build_command runs" {
	swap_case none
}
