#!/usr/bin/env bats
# Nothing a run could write is trusted afterwards (DESIGN §24, issue 39
# items 1, 2 and 6): the box is read-only but for its allowlist, burl
# resolves its programs at watch's start, a reviewer's files are its own,
# the session's sockets and a remote URL's token are hidden.

# shellcheck disable=SC2016 # the agents expand what is in single quotes
bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

setup() {
	need_bwrap
	watch_repo
	export PATH="$HOME/.local/bin:$PATH"
	MARK="$BATS_TEST_TMPDIR/fake-bwrap-ran"
	# What each run says of itself: confined when watch mounted its run's
	# description at the repository's active-run file.
	CONFINED='if [ -s "'"$REPO"'/.git/burl/active-run" ]; then echo confined; else echo unconfined; fi >>"'"$AGENTS"'/seen-$BURL_TASK"'
}

@test "an agent that writes a program named bwrap into ~/.local/bin on PATH never becomes the next run's sandbox: HOME is read-only, the next run is confined" {
	git burl add "One" --affects-glob 'src/**' >/dev/null
	git burl add "Two" --affects-glob 'src/**' >/dev/null
	agent planter "$CONFINED"'
mkdir -p "$HOME/.local/bin" 2>/dev/null
if printf "#!/bin/sh\ntouch '"$MARK"'\nwhile [ \"\$1\" != -- ]; do shift; done; shift; exec \"\$@\"\n" >"$HOME/.local/bin/bwrap" 2>/dev/null; then
	chmod +x "$HOME/.local/bin/bwrap"; echo planted >>"'"$AGENTS"'/planted"
else
	echo refused >>"'"$AGENTS"'/planted"
fi
mkdir -p src && echo "$BURL_TASK" >"src/$BURL_TASK.txt"'
	SANDBOX=bwrap MAXP=1 one_agent planter
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(cat "$AGENTS/seen-TASK-001")" = confined ]
	[ "$(cat "$AGENTS/seen-TASK-002")" = confined ]
	[ ! -e "$MARK" ]
	[ ! -e "$HOME/.local/bin/bwrap" ]
	[ "$(sort -u "$AGENTS/planted")" = refused ]
	[ "$(bucket_of TASK-002)" = DONE ]
}

@test "watch refuses to start when bubblewrap or git lies in a directory agents.yaml's sandbox_write lets a run write, naming it" {
	git burl add "One" --affects-glob 'src/**' >/dev/null
	mkdir -p "$HOME/.local/bin"
	ln -s "$(command -v bwrap)" "$HOME/.local/bin/bwrap"
	agent bot "$CONFINED"
	agents_yaml "sandbox: bwrap
sandbox_write: [\"$AGENTS\", \"~/.local/bin\"]
agents:
  - name: bot
    command: [\"$AGENTS/bot\"]"
	run git burl watch --once --interval 100ms
	assert_failure 1
	assert_output_contains "bubblewrap $HOME/.local/bin/bwrap lies in $HOME/.local/bin, which an agent's run can write"
	[ ! -e "$AGENTS/seen-TASK-001" ]
}

@test "sandbox_write is trusted like a command: a widened list runs no agent until this user trusts it" {
	git burl add "One" --affects-glob 'src/**' >/dev/null
	agent bot "$CONFINED"'
mkdir -p src && echo x >src/x.txt'
	agents_yaml "sandbox: bwrap
sandbox_write: [\"$AGENTS\"]
agents:
  - name: bot
    command: [\"$AGENTS/bot\"]"
	sed -i "s|^sandbox_write: .*|sandbox_write: [\"$AGENTS\", \"~/.cache/widened\"]|" .burl/.workflow/agents.yaml
	git -C .burl commit -qam "widen sandbox_write"
	run git burl watch --once --interval 100ms
	assert_output_contains "sandbox_write"
	[ ! -e "$AGENTS/seen-TASK-001" ]
	git burl trust --yes >/dev/null
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(cat "$AGENTS/seen-TASK-001")" = confined ]
}

@test "the agent's /tmp is its own: a file it leaves in /tmp is not in the real /tmp, nor does it see another's; \$TMPDIR is that /tmp" {
	git burl add "One" --affects-glob 'src/**' >/dev/null
	probe="burl-box-probe-$$-$BATS_TEST_NUMBER"
	echo outside >"/tmp/$probe-outer"
	agent bot "$CONFINED"'
echo inside >"/tmp/'"$probe"'-inner"
echo "outer [$(cat /tmp/'"$probe"'-outer 2>/dev/null)] tmpdir [$TMPDIR]" >"'"$AGENTS"'/tmp-seen"
mkdir -p src && echo x >src/x.txt'
	SANDBOX=bwrap one_agent bot
	TMPDIR="$BATS_TEST_TMPDIR" run git burl watch --once --interval 100ms
	rm -f "/tmp/$probe-outer"
	assert_success
	[ "$(cat "$AGENTS/seen-TASK-001")" = confined ]
	[ "$(cat "$AGENTS/tmp-seen")" = "outer [] tmpdir [/tmp]" ]
	[ ! -e "/tmp/$probe-inner" ]
}

@test "the session D-Bus and gpg-agent sockets refuse the agent, and a token in a remote's URL is not in the .git/config it reads" {
	git burl add "One" --affects-glob 'src/**' >/dev/null
	bus="$BATS_TEST_TMPDIR/bus"
	mkdir -p "$HOME/.gnupg"
	gpg="$HOME/.gnupg/S.gpg-agent"
	for s in "$bus" "$gpg"; do
		perl -MIO::Socket::UNIX -e '$s = IO::Socket::UNIX->new(Type => SOCK_STREAM, Local => $ARGV[0], Listen => 5) or die; while ($c = $s->accept) { print $c "HELLO\n"; close $c }' "$s" &
		echo $! >>"$BATS_TEST_TMPDIR/listeners"
	done
	wait_until 10 test -S "$bus"
	wait_until 10 test -S "$gpg"
	git remote add fork "https://burl:TOKEN-IN-URL@example.invalid/fork.git"
	agent bot "$CONFINED"'
for s in "'"$bus"'" "'"$gpg"'"; do
	if perl -MIO::Socket::UNIX -e "\$c = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => \$ARGV[0]) or exit 1; print scalar <\$c>" "$s" | grep -q HELLO; then echo "reached $s"; else echo "refused $s"; fi
done >"'"$AGENTS"'/sockets"
{ cat "'"$REPO"'/.git/config"; git config --get remote.fork.url; } >"'"$AGENTS"'/config-seen" 2>&1
echo "dbus [${DBUS_SESSION_BUS_ADDRESS:-}]" >>"'"$AGENTS"'/sockets"
mkdir -p src && echo x >src/x.txt'
	SANDBOX=bwrap one_agent bot
	DBUS_SESSION_BUS_ADDRESS="unix:path=$bus" run git burl watch --once --interval 100ms
	xargs kill <"$BATS_TEST_TMPDIR/listeners" 2>/dev/null || true
	assert_success
	[ "$(cat "$AGENTS/seen-TASK-001")" = confined ]
	grep -qx "refused $bus" "$AGENTS/sockets"
	grep -qx "refused $gpg" "$AGENTS/sockets"
	grep -qx "dbus \[\]" "$AGENTS/sockets"
	grep -q "example.invalid/fork.git" "$AGENTS/config-seen"
	! grep -q "TOKEN-IN-URL" "$AGENTS/config-seen" || false
	# burl's own .git/config keeps it.
	grep -q "TOKEN-IN-URL" .git/config
}
