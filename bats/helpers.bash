# Shared setup for burl's end-to-end tests: every test gets its own HOME,
# git config and a real repository cloned from a real bare origin.
# shellcheck shell=bash
# status and output are set by bats' `run`.
# shellcheck disable=SC2154

setup_isolated_git() {
	export HOME="$BATS_TEST_TMPDIR/home"
	mkdir -p "$HOME"
	export GIT_CONFIG_NOSYSTEM=1
	export GIT_CONFIG_GLOBAL="$HOME/.gitconfig"
	git config --global user.name "Burl Test"
	git config --global user.email "test@burl.invalid"
	git config --global init.defaultBranch main
	git config --global advice.detachedHead false
	export BURL_ACTOR="tester@bats"
	# The trust store (DESIGN §16) is then $HOME/.local/state/burl/trust:
	# every test starts trusting nothing but what it trusts itself.
	unset XDG_STATE_HOME
	unset BURL_CRASH_AFTER BURL_CRASH_AT_GIT BURL_FAIL BURL_FORCE_EXDEV BURL_TRACE
	# What own_pids knows this test's processes by, inherited by all of them.
	export BURL_TEST_OWNER="$BATS_TEST_TMPDIR"
}

# own_pids PATTERN: the pids of this test's processes whose command line
# matches PATTERN (as pgrep -f): of those of this user, the ones whose
# working directory is in this test's folder or whose environment carries
# its BURL_TEST_OWNER. Never a name across the machine: other test files
# run in parallel, and a user's own git burl watch runs the same commands
# (issue 40). bats/process_hygiene.bats keeps it so.
own_pids() {
	local p cwd
	for p in $(pgrep -u "$(id -u)" -f -- "$1"); do
		cwd=$(readlink "/proc/$p/cwd" 2>/dev/null) || continue
		case $cwd/ in
		"$BATS_TEST_TMPDIR"/*) echo "$p" ;;
		*) tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxF "BURL_TEST_OWNER=$BATS_TEST_TMPDIR" && echo "$p" ;;
		esac
	done
	return 0
}

# has_own_proc PATTERN / no_own_proc PATTERN: a process of this test
# matches PATTERN / none does any more.
has_own_proc() { [ -n "$(own_pids "$1")" ]; }
no_own_proc() { [ -z "$(own_pids "$1")" ]; }

# new_repo: $ORIGIN is a bare repository, $REPO a clone with one commit on
# main (pushed), and the working directory is $REPO.
new_repo() {
	setup_isolated_git
	ORIGIN="$BATS_TEST_TMPDIR/origin.git"
	REPO="$BATS_TEST_TMPDIR/repo"
	git init -q --bare "$ORIGIN"
	git clone -q "$ORIGIN" "$REPO" 2>/dev/null
	cd "$REPO" || return 1
	seed_repo
	git push -q origin main
}

# seed_repo: the first commit of every test repository, in the current
# directory: a Go file holding a TODO that is not the task's, and a README.
seed_repo() {
	mkdir -p src
	printf 'package src\n\n// existing TODO: not ours\nfunc Jump() {}\n' >src/jump.go
	printf '# demo\n' >README.md
	git add -A
	git commit -q -m "initial commit"
}

# new_burl_repo: new_repo plus `git burl init`.
new_burl_repo() {
	new_repo
	git burl init >/dev/null
}

# clone_repo DIR: another clone of $ORIGIN (another "machine").
clone_repo() {
	git clone -q "$ORIGIN" "$1" 2>/dev/null
}

# commit_file PATH CONTENT: write, add and commit in the current directory.
commit_file() {
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
	git add -- "$1"
	git commit -q -m "${3:-edit $1}"
}

# bucket_of ID: the bucket directory holding the task, checked for uniqueness.
bucket_of() {
	local f b found=()
	# DONE keeps its tasks in month shards: DONE/2026-11/TASK-….md.
	for f in "$REPO"/.burl/.workflow/*/"$1"-*.md "$REPO"/.burl/.workflow/DONE/*/"$1"-*.md; do
		[ -e "$f" ] || continue
		b=$(basename "$(dirname "$f")")
		[[ $b =~ ^[0-9]{4}-[0-9]{2}$ ]] && b=DONE
		found+=("$b")
	done
	[ "${#found[@]}" -le 1 ] || { echo "DUPLICATE:${found[*]}"; return 1; }
	echo "${found[@]}"
}

# assert_success / assert_failure CODE / assert_output_contains TEXT:
# small assertions that print the command's output when they fail.
assert_success() {
	if [ "$status" -ne 0 ]; then
		echo "expected success, got exit $status; output:" >&2
		echo "$output" >&2
		return 1
	fi
}

assert_failure() {
	if [ "$status" -ne "$1" ]; then
		echo "expected exit $1, got $status; output:" >&2
		echo "$output" >&2
		return 1
	fi
}

assert_output_contains() {
	if [[ "$output" != *"$1"* ]]; then
		echo "expected output to contain: $1" >&2
		echo "actual output:" >&2
		echo "$output" >&2
		return 1
	fi
}

refute_output_contains() {
	if [[ "$output" == *"$1"* ]]; then
		echo "expected output NOT to contain: $1" >&2
		echo "actual output:" >&2
		echo "$output" >&2
		return 1
	fi
}

# sed_escape TEXT: TEXT for the replacement side of s|...|...|.
sed_escape() {
	printf '%s' "$1" | sed 's/[&|\\]/\\&/g'
}

# set_config KEY VALUE: set a key of .burl/.workflow/config.yaml and commit
# it on the workflow branch, as a user would; a command (build_command) is
# then trusted on this machine, as that user would (git burl trust).
set_config() {
	local cfg="$REPO/.burl/.workflow/config.yaml"
	grep -q "^$1:" "$cfg" || { echo "set_config: no key $1 in $cfg" >&2; return 1; }
	sed -i.bak "s|^$1:.*|$1: $(sed_escape "$2")|" "$cfg" && rm -f "$cfg.bak"
	git -C "$REPO/.burl" commit -q -m "config: $1" -- .workflow/config.yaml || return 1
	case $1 in build_command) trust_all ;; esac
}

# trust_all: trust every command of the workflow in $REPO (git burl trust
# --yes), as its user would after reading them.
trust_all() {
	local out
	out=$(git -C "$REPO" burl trust --yes 2>&1) || { echo "git burl trust --yes failed: $out" >&2; return 1; }
}

# event_shard: today's event log file, relative to the workflow worktree
# (the log is one file per day, UTC).
event_shard() {
	echo ".workflow/events/$(date -u +%Y/%m/%Y-%m-%d).ndjson"
}

# all_events [ROOT]: every line of the event log of the clone at ROOT
# (default $REPO), oldest file first.
all_events() {
	find "${1:-$REPO}/.burl/.workflow/events" -name '*.ndjson' | LC_ALL=C sort | xargs -r cat
}

# need TOOL: skip without TOOL on a developer's machine; CI installs every
# tool (make test runs contrib/test-deps.sh), so there a missing one fails.
need() {
	command -v "$1" >/dev/null && return 0
	[ -z "${CI:-}" ] || { echo "$1 is not installed; contrib/test-deps.sh installs it" >&2; return 1; }
	skip "$1 is not installed (contrib/test-deps.sh, run by make test, installs it)"
}
