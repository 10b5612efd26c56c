# Helpers for the watch tests: a repository with agents.yaml and small
# agent scripts. Load after helpers and lifecycle.
# shellcheck shell=bash

# watch_repo: new_burl_repo with no DOING cap and short leases.
watch_repo() {
	new_burl_repo
	set_config max_parallel 0
	no_backoff
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
}

# no_backoff: retry_backoff 0s in $REPO, so that a test's retries and
# rounds after a rejection run at once (set_config changes it again).
no_backoff() {
	printf 'retry_backoff: 0s\n' >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: retry_backoff" -- .workflow/config.yaml
}

# agents_yaml TEXT: write .burl/.workflow/agents.yaml in $REPO, commit it
# on the workflow branch and trust its commands (as the user who wrote it).
# The agents' box may write $AGENTS, where the test's agents leave what
# they saw, and ~/.claude, as the claude-code preset's does (DESIGN §24:
# the rest of the file system is read-only to them), unless TEXT says
# sandbox_write: itself.
agents_yaml() {
	local text=$1
	case $text in
	*sandbox_write:*) ;;
	*) [ -z "${AGENTS:-}" ] || text="$text
sandbox_write: [\"$AGENTS\", \"~/.claude/\"]" ;;
	esac
	printf '%s\n' "$text" >"$REPO/.burl/.workflow/agents.yaml"
	git -C "$REPO/.burl" add .workflow/agents.yaml
	git -C "$REPO/.burl" commit -q -m "agents.yaml" -- .workflow/agents.yaml || return 1
	# An agents.yaml that does not parse (the tests of its errors) has
	# nothing to trust, and the test then sees watch's own error.
	git -C "$REPO" burl trust --yes >/dev/null 2>&1 || true
}

# agent NAME BODY: an executable /bin/sh script $AGENTS/NAME. Every agent
# saves the prompt it was given as $AGENTS/prompts/<task>-<attempt>.md.
agent() {
	{
		printf '#!/bin/sh\n'
		# shellcheck disable=SC2016 # expanded by the agent, not here
		printf 'mkdir -p %s/prompts && cp "$BURL_PROMPT_FILE" %s/prompts/"$BURL_TASK-$BURL_ATTEMPT.md"\n' "$AGENTS" "$AGENTS"
		printf '%s\n' "$2"
	} >"$AGENTS/$1"
	chmod +x "$AGENTS/$1"
}

# one_agent NAME: agents.yaml with one agent running $AGENTS/NAME,
# auto_approve on; SANDBOX=none|bwrap|auto sets sandbox:.
one_agent() {
	agents_yaml "auto_approve: true
${SANDBOX:+sandbox: $SANDBOX
}agents:
  - name: bot
    command: [\"$AGENTS/$1\"]
    max_parallel: ${MAXP:-2}
    timeout: ${TIMEOUT:-30s}
    retries: ${RETRIES:-1}"
}

# need_bwrap: skip the test where bubblewrap cannot run (it must on CI).
need_bwrap() {
	command -v bwrap >/dev/null && bwrap --dev-bind / / --ro-bind / / true 2>/dev/null && return 0
	[ -z "${CI:-}" ] || { echo "bwrap does not work here; contrib/test-deps.sh installs it" >&2; return 1; }
	skip "bwrap does not work here (contrib/test-deps.sh, run by make test, installs bubblewrap)"
}

# path_without_bwrap: $PATH with every directory holding bwrap replaced
# by a copy of it (symlinks) without bwrap: a machine without bubblewrap.
path_without_bwrap() {
	local d out="" shadow
	local IFS=:
	for d in $PATH; do
		if [ -e "$d/bwrap" ]; then
			shadow="$BATS_TEST_TMPDIR/nobwrap$d"
			mkdir -p "$shadow" && cp -s "$d"/* "$shadow"/ 2>/dev/null
			rm -f "$shadow/bwrap"
			d=$shadow
		fi
		out=${out:+$out:}$d
	done
	echo "$out"
}

# bucket_is ID BUCKET: the task is in BUCKET (for wait_until).
bucket_is() {
	[ "$(bucket_of "$1")" = "$2" ]
}

# gone PID...: succeeds when none of the processes exists any more.
gone() {
	local p
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && return 1
	done
	return 0
}

# wait_until SECONDS COMMAND...: poll COMMAND every 0.1 s.
wait_until() {
	local n=$(($1 * 10))
	shift
	while ! "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.1
	done
}

# all_events: every line of this clone's event log, whatever its shards.
all_events() {
	find "$PWD/.burl/.workflow/events" -name '*.ndjson' -exec cat {} +
}

# run_started ID: a run of ID has begun (its run_start event is written).
# Not lease_expires, which a watcher's claim sets already.
run_started() {
	[ -n "$(all_events | jq -c --arg id "$1" 'select(.task == $id and .action == "run_start")')" ]
}

# remote_events: every line of the event log on origin/burl.
remote_events() {
	local f
	git ls-tree -r --name-only origin/burl .workflow/events | while read -r f; do
		case $f in *.ndjson) git show "origin/burl:$f" ;; esac
	done
}

# AGENT_PID and AGENT_BG: what an agent script writes to a file to name
# its own process ($$) or its last background one ($!): "NAMESPACE PID".
# Under bubblewrap a run has a PID namespace of its own, where pids mean
# nothing outside; the namespace does.
# They are text for a script, quotes included.
# shellcheck disable=SC2016,SC2089,SC2034 # expanded by the agent; used by the .bats files
AGENT_PID='"$(readlink /proc/self/ns/pid) $$"'
# shellcheck disable=SC2016,SC2089,SC2034
AGENT_BG='"$(readlink /proc/self/ns/pid) $!"'

# in_pid_ns NS: a live process of this machine is in the PID namespace NS
# and in a run of $REPO: its own view of the active-run file names one
# (a namespace's number is reused once it is gone, maybe by another
# sandbox on this machine).
in_pid_ns() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$1" ] || continue
		grep -q '^State:.*zombie' "$p/status" 2>/dev/null && continue
		grep -qsF "$REPO" "$p/root$REPO/.git/burl/active-run" && return 0
	done
	return 1
}

# procs_gone FILE: every process FILE names ("NAMESPACE PID" lines, as
# AGENT_PID writes them) is gone: in a run's own PID namespace, no process
# of that namespace is left; in this machine's, the pid is gone.
procs_gone() {
	local ns pid host
	host=$(readlink /proc/self/ns/pid)
	while read -r ns pid; do
		if [ "$ns" = "$host" ]; then
			kill -0 "$pid" 2>/dev/null && return 1
		elif in_pid_ns "$ns"; then
			return 1
		fi
	done <"$1"
	return 0
}
