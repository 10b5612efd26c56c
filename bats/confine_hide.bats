#!/usr/bin/env bats
# DESIGN §19: the user's push and forge credentials are hidden from agents
# (agents.yaml sandbox_hide, default: ~/.ssh, ~/.git-credentials, the
# stores of configured credential helpers, ~/.config/gh, glab's, the SSH
# agent and the forge tokens), and a remote that is a local path is
# read-only to them: only burl pushes. The agent's own tool config under
# HOME stays its own.

setup_file() {
	load forge
	forge_setup_file
}

teardown_file() {
	load forge
	forge_teardown_file
}

setup() {
	load helpers
	load lifecycle
	load forge
	load watch
}

# pusher: an agent that tries to push main, the workflow branch and its
# own branch to origin, reads the user's credentials and notes what it
# saw in $AGENTS/report.
pusher() {
	agent pusher 'r='"$AGENTS"'/report
export GIT_TERMINAL_PROMPT=0
mkdir -p src && echo ok >src/ok.txt && git add -A && git commit -qm work
for ref in main burl "$BURL_BRANCH"; do
	if git push -q origin "HEAD:refs/heads/$ref" 2>>'"$AGENTS"'/push.err; then echo "pushed $ref" >>"$r"; else echo "refused $ref" >>"$r"; fi
done
echo "ssh [$(cat "$HOME/.ssh/id_ed25519" 2>/dev/null)]" >>"$r"
echo "credentials [$(cat "$HOME/.git-credentials" 2>/dev/null)]" >>"$r"
echo "gh [$(cat "$HOME/.config/gh/hosts.yml" 2>/dev/null)]" >>"$r"
[ -S "$SSH_SOCK" ] && echo "agent socket" >>"$r"
echo "env [${GH_TOKEN:-}${GITHUB_TOKEN:-}${GITLAB_TOKEN:-}${BURL_FORGE_TOKEN:-}${SSH_AUTH_SOCK:-}]" >>"$r"
mkdir -p "$HOME/.claude" && echo mine >"$HOME/.claude/state" && echo "own config $(cat "$HOME/.claude/state")" >>"$r"'
}

# secrets: what a user's HOME holds, and the variables of a shell.
secrets() {
	mkdir -p "$HOME/.ssh" "$HOME/.config/gh"
	echo PRIVATE-KEY >"$HOME/.ssh/id_ed25519"
	echo "github.com: {oauth_token: gho_secret}" >"$HOME/.config/gh/hosts.yml"
	export SSH_SOCK="$BATS_TEST_TMPDIR/agent.sock"
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$SSH_SOCK"
	export SSH_AUTH_SOCK=$SSH_SOCK GH_TOKEN=t1 GITHUB_TOKEN=t2 GITLAB_TOKEN=t3 BURL_FORGE_TOKEN=t4
}

assert_confined_report() {
	local r="$AGENTS/report"
	grep -qx "refused main" "$r"
	grep -qx "refused burl" "$r"
	grep -qx "refused $(field TASK-001 branch)" "$r"
	grep -qx "ssh \[\]" "$r"
	grep -qx "credentials \[\]" "$r"
	grep -qx "gh \[\]" "$r"
	! grep -q "agent socket" "$r" || false
	grep -qx "env \[\]" "$r"
	grep -qx "own config mine" "$r"
}

@test "under bubblewrap an agent cannot push main, the workflow branch or its own branch to a local-path origin; the user's credentials read as empty, its env lacks the tokens" {
	need_bwrap
	watch_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	secrets
	echo "https://u:secret@example.invalid" >"$HOME/.git-credentials"
	before=$(git ls-remote "$ORIGIN")
	pusher
	SANDBOX=bwrap one_agent pusher
	run git burl watch --once --interval 100ms
	assert_success
	assert_confined_report
	[ "$(git ls-remote "$ORIGIN")" = "$before" ]
	[ "$(bucket_of TASK-001)" = DONE ]
	# Outside the sandbox nothing was touched.
	[ "$(cat "$HOME/.ssh/id_ed25519")" = PRIVATE-KEY ]
	[ "$(cat "$HOME/.claude/state")" = mine ]
}

@test "under bubblewrap an agent cannot push to an https origin with the user's credential store" {
	need_bwrap
	# A Gitea repository reached over http with a credential store, as
	# new_gitea_repo makes it; landing locally.
	new_gitea_repo
	sed -i '/^landing: pr$/d; /^pr_merge: none$/d' .burl/.workflow/config.yaml
	git -C .burl commit -qam "land locally"
	set_config max_parallel 0
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	secrets
	before=$(git ls-remote origin)
	pusher
	SANDBOX=bwrap one_agent pusher
	run git burl watch --once --interval 100ms
	assert_success
	assert_confined_report
	[ "$(git ls-remote origin)" = "$before" ]
	grep -qi "could not read Username\|Authentication failed\|terminal prompts disabled" "$AGENTS/push.err"
	# burl itself still pushes with the user's credentials.
	git push -q origin main
}

@test "sandbox_hide replaces the default, is trusted like a command, and hides a path and a variable of its own" {
	need_bwrap
	watch_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	mkdir -p "$HOME/.aws" && echo AWSKEY >"$HOME/.aws/credentials"
	export AWS_SECRET_ACCESS_KEY=aws-secret GH_TOKEN=still-here
	agent reader 'echo "[$(cat "$HOME/.aws/credentials" 2>/dev/null)] [${AWS_SECRET_ACCESS_KEY:-}] [${GH_TOKEN:-}]" >'"$AGENTS"'/seen
mkdir -p src && echo ok >src/ok.txt'
	one_agent reader
	# Someone pushes a sandbox_hide: it waits for this user's trust.
	sed -i '1i sandbox_hide: ["~/.aws", AWS_SECRET_ACCESS_KEY]' .burl/.workflow/agents.yaml
	git -C .burl commit -qam "hide aws"
	run git burl watch --once --interval 100ms
	assert_failure 1
	assert_output_contains "sandbox_hide"
	[ ! -e "$AGENTS/seen" ]
	run git burl trust
	assert_failure 1
	assert_output_contains 'sandbox_hide in .burl/.workflow/agents.yaml'
	assert_output_contains '+ ["~/.aws","AWS_SECRET_ACCESS_KEY"]'
	git burl trust --yes >/dev/null
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(cat "$AGENTS/seen")" = "[] [] [still-here]" ]
}

@test "a sandbox_hide entry that is neither ~/path, /path nor a variable is refused with its line" {
	watch_repo
	agent good 'true'
	one_agent good
	sed -i '1i sandbox_hide: [".ssh"]' .burl/.workflow/agents.yaml
	git -C .burl commit -qam "hide"
	run git burl watch --once --interval 100ms
	assert_failure 1
	assert_output_contains 'agents.yaml:1: sandbox_hide: ".ssh" is neither ~/path, /path nor the name of an environment variable'
}

@test "without a sandbox the tokens and the SSH agent are still taken out of the agent's environment" {
	watch_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	export SSH_AUTH_SOCK=/nowhere.sock GH_TOKEN=t1 GITHUB_TOKEN=t2 GITLAB_TOKEN=t3 BURL_FORGE_TOKEN=t4 KEEP_ME=k
	agent envy 'echo "[${GH_TOKEN:-}${GITHUB_TOKEN:-}${GITLAB_TOKEN:-}${BURL_FORGE_TOKEN:-}${SSH_AUTH_SOCK:-}] [$KEEP_ME]" >'"$AGENTS"'/seen
mkdir -p src && echo ok >src/ok.txt'
	SANDBOX=none one_agent envy
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(cat "$AGENTS/seen")" = "[] [k]" ]
}
