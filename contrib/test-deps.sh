#!/usr/bin/env bash
# What `make test` needs beyond Go and git, checked first (DESIGN §25): on
# a Debian machine as root it installs what is missing; anywhere else it
# names what is missing and the commands that install it, and fails.
# .ci/run runs `make test`, which runs this.
set -euo pipefail

# The MCP tests drive git burl mcp with the official inspector's CLI.
INSPECTOR=2.12.0

apt=() bare=() npm=()
for tool in bats mandoc shellcheck jq curl tmux; do
	command -v "$tool" >/dev/null 2>&1 || apt+=("$tool")
done
command -v man >/dev/null 2>&1 || apt+=(man-db)
# bats runs test files in parallel jobs through GNU parallel.
command -v parallel >/dev/null 2>&1 || apt+=(parallel)
command -v flock >/dev/null 2>&1 || apt+=(util-linux)
# The hook-manager tests run the real tools: pre-commit as Debian ships it
# (3.0.4 in Debian 12) and lefthook from npm.
command -v pre-commit >/dev/null 2>&1 || apt+=(pre-commit)
command -v npm >/dev/null 2>&1 || apt+=(npm)
# watch runs agents under bubblewrap (DESIGN §16); the sandbox tests need it.
command -v bwrap >/dev/null 2>&1 || apt+=(bubblewrap)
# The HTML report is read in a real headless browser: chromium without its
# recommends (udev, mesa, printing ...), and one font.
command -v chromium >/dev/null 2>&1 || bare+=(chromium fonts-liberation)
command -v lefthook >/dev/null 2>&1 || npm+=(lefthook)
[ "$(mcp-inspector --version 2>/dev/null)" = "$INSPECTOR" ] || npm+=("@modelcontextprotocol/inspector@$INSPECTOR")

if [ ${#apt[@]} -gt 0 ] || [ ${#bare[@]} -gt 0 ] || [ ${#npm[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		echo "make test needs what is not installed here:" >&2
		if [ ${#apt[@]} -gt 0 ] || [ ${#bare[@]} -gt 0 ]; then
			echo "  Debian packages: ${apt[*]} ${bare[*]}" >&2
		fi
		[ ${#npm[@]} -eq 0 ] || echo "  npm packages: ${npm[*]}" >&2
		echo "install them (as root, on Debian or Ubuntu) with:" >&2
		[ ${#apt[@]} -eq 0 ] || echo "  apt-get install ${apt[*]}" >&2
		[ ${#bare[@]} -eq 0 ] || echo "  apt-get install --no-install-recommends ${bare[*]}" >&2
		[ ${#npm[@]} -eq 0 ] || echo "  (cd / && npm install -g ${npm[*]})" >&2
		echo "or run make test as root on Debian, which installs them; make unit needs none of them" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	if [ ${#apt[@]} -gt 0 ] || [ ${#bare[@]} -gt 0 ]; then
		apt-get update -qq
	fi
	if [ ${#apt[@]} -gt 0 ]; then
		echo "test-deps: installing ${apt[*]}" >&2
		apt-get install -y -qq "${apt[@]}" >/dev/null
	fi
	if [ ${#bare[@]} -gt 0 ]; then
		echo "test-deps: installing ${bare[*]} (without recommends)" >&2
		apt-get install -y -qq --no-install-recommends "${bare[@]}" >/dev/null
	fi
	if [ ${#npm[@]} -gt 0 ]; then
		echo "test-deps: installing ${npm[*]} from npm" >&2
		# From /, so that lefthook's postinstall finds no repository to install hooks into.
		(cd / && npm install -g --silent "${npm[@]}")
	fi
fi

# The sandbox tests must run for real, never skip (issue 31): bwrap must
# make the namespaces watch asks for (pkg/sandbox's confinement).
bwrap --unshare-user --disable-userns --unshare-pid --new-session --die-with-parent --cap-drop ALL \
	--dev-bind / / --proc /proc -- true ||
	{
		echo "bubblewrap cannot confine a run on this machine (unprivileged user namespaces off?): the sandbox tests would skip" >&2
		exit 1
	}
