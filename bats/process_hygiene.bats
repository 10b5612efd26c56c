#!/usr/bin/env bats
# Issue 40 item 5: a test finds only its own processes (pids it started,
# its folder, its BURL_TEST_OWNER), never a name across the machine: test
# files run in parallel (make bats), and a user may be running git burl
# watch on another repository while `make test` runs (.ci/run does so).

load helpers

teardown() {
	local p
	for p in ${started:-}; do
		kill "$p" 2>/dev/null || true
	done
}

# start_sleep DIR [ENV...]: a `sleep 97.25` with DIR as working directory
# and the environment changed by ENV (env's arguments); its pid is $last,
# and added to $started.
start_sleep() {
	local d=$1
	shift
	(cd "$d" && exec env "$@" sleep 97.25) </dev/null >/dev/null 2>&1 &
	last=$!
	started="${started:-} $last"
}

@test "own_pids finds this test's processes by its folder or its marker, never another's of the same name" {
	setup_isolated_git
	mkdir -p "$BATS_TEST_TMPDIR/repo" "$BATS_TEST_TMPDIR/elsewhere"
	start_sleep "$BATS_TEST_TMPDIR/repo"
	mine=$last
	# Started from elsewhere, but by this test: it carries the marker.
	start_sleep /
	marked=$last
	# Another user's session on this machine: the same command, not ours.
	start_sleep / -u BURL_TEST_OWNER
	foreign=$last
	# A neighbour whose folder's name begins with this test's.
	mkdir -p "${BATS_TEST_TMPDIR}0"
	start_sleep "${BATS_TEST_TMPDIR}0" BURL_TEST_OWNER="${BATS_TEST_TMPDIR}0"
	neighbour=$last
	for p in $mine $marked $foreign $neighbour; do
		wait_for_comm "$p" sleep
	done
	got=$(own_pids '^sleep 97\.25$' | sort -n | tr '\n' ' ')
	want=$(printf '%s\n' "$mine" "$marked" | sort -n | tr '\n' ' ')
	[ "$got" = "$want" ] || { echo "own_pids: got '$got', want '$want' (foreign $foreign, neighbour $neighbour)" >&2; false; }
	has_own_proc '^sleep 97\.25$'
	kill "$mine" "$marked"
	wait "$mine" "$marked" 2>/dev/null || true
	# The foreign ones live on, and are still not ours.
	kill -0 "$foreign"
	no_own_proc '^sleep 97\.25$'
	rm -rf "${BATS_TEST_TMPDIR}0"
}

# wait_for_comm PID NAME: the subshell PID has exec'd NAME.
wait_for_comm() {
	local _
	for _ in $(seq 50); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

@test "no test looks for processes by name across the machine: pgrep and pkill only through own_pids or a parent's pid" {
	cd "$BATS_TEST_DIRNAME"
	# pgrep -P PID names a parent the test started; own_pids is the one
	# place that may ask pgrep by name, and filters what it finds.
	# shellcheck disable=SC2016 # literal text, not expanded
	output=$(grep -nE '(^|[^[:alnum:]_-])(pgrep|pkill|killall)([^[:alnum:]_-]|$)' ./*.bats ./*.bash |
		grep -vE 'pgrep -P "?\$' |
		grep -vF './helpers.bash:'"$(grep -n 'for p in $(pgrep -u "$(id -u)" -f -- "$1"); do' helpers.bash)" |
		grep -vE '^\./[a-z_]+\.(bats|bash):[0-9]+:[[:space:]]*#' |
		grep -v '^\./process_hygiene\.bats:') || true
	[ -z "$output" ] || { echo "processes looked up by name (use own_pids, has_own_proc, no_own_proc from helpers.bash):" >&2; echo "$output" >&2; false; }
}
