#!/bin/sh
# One worker: claim the next task, run an agent in its worktree, commit what
# the agent changed, submit; repeat until READY is empty. Start as many as
# you like, in the same repository or in other clones of it. This is the
# minimal example; `git burl watch` supervises agents for real.
#
# This is the minimal example; `git burl watch` (git-burl-watch(1)) is the
# supervisor that does this with retries, prompts, timeouts and leases.
#
#   contrib/agent-loop.sh [-n MAX] [--] AGENT_COMMAND [ARG...]
#
# AGENT_COMMAND runs in the task's worktree with BURL_TASK (TASK-001),
# BURL_WORKTREE and BURL_TASK_FILE (the task's markdown, to read as the
# prompt) set. It may commit on its own or leave its changes uncommitted.
#
# A step that fails gives the task back (git burl release, keeping its
# branch and worktree so the next attempt starts from that work, with the
# reason recorded) and stops the loop with that step's exit code:
#   0  READY is empty (claim exits 1), or MAX tasks submitted
#   1  claim refused for another reason, or the agent changed nothing
#   2  the gates failed (the commit-msg hook or submit: scope, stubs)
#   3  a git command failed
#   4  BURL_LOOP_RETRIES is set and claim still exited 4 after that many
#      waits, or submit still met a lock after that many tries
#   N  the agent's own non-zero exit code
# Claim exits 4 while READY has tasks none of which can be claimed now (a
# dependency not DONE, a scope overlapping a DOING task, max_parallel,
# another worker's lock): the loop waits BURL_LOOP_WAIT (5) seconds and
# tries again, for as long as it takes unless BURL_LOOP_RETRIES is set
# (submit retries a lock BURL_LOOP_RETRIES times, 60 when unset).
set -u

usage() {
	echo "usage: $0 [-n MAX] [--] AGENT_COMMAND [ARG...]" >&2
	exit 1
}

max=0
while [ $# -gt 0 ]; do
	case $1 in
	-n)
		[ $# -ge 2 ] || usage
		max=$2
		shift 2
		;;
	--)
		shift
		break
		;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || usage
case $max in '' | *[!0-9]*) usage ;; esac

claim_retries=${BURL_LOOP_RETRIES:-0}
retries=${BURL_LOOP_RETRIES:-60}
wait_s=${BURL_LOOP_WAIT:-5}
say() { echo "agent-loop: $*" >&2; }

task=""
errfile=$(mktemp) || exit 1
trap 'rm -f "$errfile"' EXIT

# give_back CODE REASON: release the current task with REASON, exit CODE.
give_back() {
	say "$2; releasing $task"
	git burl release "$task" --reason "agent-loop: $2" >/dev/null || say "could not release $task: see git burl status"
	exit "$1"
}
trap '[ -n "$task" ] && give_back 130 "interrupted"; exit 130' INT TERM

done_count=0
locked=0
while [ "$max" -eq 0 ] || [ "$done_count" -lt "$max" ]; do
	task=""
	out=$(git burl claim 2>"$errfile")
	rc=$?
	case $rc in
	0) locked=0 ;;
	1)
		if grep -q "Nothing to claim" "$errfile"; then
			say "READY is empty: nothing left to claim after $done_count task(s)"
			exit 0
		fi
		cat "$errfile" >&2
		exit 1
		;;
	4)
		locked=$((locked + 1))
		if [ "$claim_retries" -gt 0 ] && [ "$locked" -gt "$claim_retries" ]; then
			cat "$errfile" >&2
			exit 4
		fi
		[ "$locked" -gt 1 ] || { say "every READY task waits; trying again every ${wait_s}s:"; cat "$errfile" >&2; }
		sleep "$wait_s"
		continue
		;;
	*)
		cat "$errfile" >&2
		exit "$rc"
		;;
	esac

	# claim prints the worktree path as its last line; the branch names the
	# task (task-001-slug -> TASK-001).
	wt=$(printf '%s\n' "$out" | tail -n 1)
	task=$(git -C "$wt" symbolic-ref --short HEAD | sed -n 's/^task-\([0-9][0-9]*\)-.*/TASK-\1/p')
	[ -n "$task" ] || { say "claim printed an unexpected worktree: $wt"; exit 3; }
	say "$task: running $1 in $wt"
	# show --json gives the task file's path relative to the main worktree.
	root=$(git worktree list --porcelain | sed -n '1s/^worktree //p')
	task_file=$root/$(git burl show --json "$task" | sed -n 's/.*"path":"\([^"]*\)".*/\1/p')

	(cd "$wt" && BURL_TASK=$task BURL_WORKTREE=$wt BURL_TASK_FILE=$task_file "$@")
	rc=$?
	[ "$rc" -eq 0 ] || give_back "$rc" "the agent exited $rc"

	if [ -n "$(git -C "$wt" status --porcelain --untracked-files=all)" ]; then
		git -C "$wt" add -A || give_back 3 "git add failed"
		# The commit-msg hook (git burl hooks install) blocks stubs and
		# out-of-scope files here already, with the same message as submit.
		git -C "$wt" commit -q -m "$task: work by $1" ||
			give_back 2 "the commit was blocked (see the hook's message above); the changes are left uncommitted in $wt"
	fi

	# Exit 4 is a lock held for a moment or a push race lost to another
	# machine: nothing changed, so submitting again is safe.
	tries=0
	while :; do
		(cd "$wt" && git burl submit)
		rc=$?
		if [ "$rc" -ne 4 ] || [ "$tries" -ge "$retries" ]; then
			break
		fi
		tries=$((tries + 1))
		say "$task: submit met a lock or lost a race; trying again in ${wait_s}s"
		sleep "$wait_s"
	done
	case $rc in
	0) done_count=$((done_count + 1)) ;;
	1) give_back 1 "submit refused (see above; usually: the agent made no commits)" ;;
	*) give_back "$rc" "submit failed with exit $rc" ;;
	esac
done
say "submitted $done_count task(s)"
