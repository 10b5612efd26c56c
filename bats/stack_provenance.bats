#!/usr/bin/env bats
# DESIGN §24 and §26: with sandbox: none, watch's ref check after a run
# tells burl's own moves from the run's by provenance. approve --all moves
# a QA task's branch (its rebase, its squash) under main's lock alone,
# before any event names the new commit: it records the move in the
# approve's intent first, and the check takes exactly that move as
# burl's. A stacked child whose run spans its parent's landing is then not
# failed as run_tampered. (An agent moving another task's branch is still
# caught: confine_refs.bats.)

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

@test "stack, sandbox: none: a child whose run ends while the queue has its parent staged, and a grandchild whose run spans the child's staging, are not run_tampered; all land in one watch" {
	watch_repo
	set_config merge_strategy squash
	# The queue's build outlasts the child's run: the ref check after
	# that run comes while the parent's branch is squashed and no event
	# names the squash yet.
	set_config build_command "sleep 3"
	printf 'stack: true\n' >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: stack" -- .workflow/config.yaml
	# A task a human submitted keeps the queue busy (its build) while the
	# parent's agent works and the child is claimed: the child's run
	# begins before the queue stages the parent.
	git burl add "Early" --affects early.txt >/dev/null
	git burl add "Parent" --affects parent.txt >/dev/null
	git burl add "Child" --affects child.txt --depends-on TASK-002 >/dev/null
	git burl add "Grandchild" --affects grand.txt --depends-on TASK-003 >/dev/null
	submitted TASK-001 early.txt early >/dev/null
	# The child waits until the queue has moved its parent's branch (the
	# refs of the repository, not of its run's git dir), says what it
	# saw, and ends. The grandchild, claimed while the parent builds,
	# waits until the child, restacked after the parent landed, is
	# squashed by the queue.
	# shellcheck disable=SC2016 # expanded by the agent
	agent stacked 'case $BURL_TASK in
TASK-002) echo parent >parent.txt ;;
TASK-003)
	base=$(git rev-parse HEAD)
	b=$(sed -n "s/^branch: //p" '"$REPO"'/.burl/.workflow/QA/TASK-002-*.md)
	n=0
	while [ "$(git --git-dir='"$REPO"'/.git rev-parse "refs/heads/$b")" = "$base" ]; do
		n=$((n+1)); [ $n -lt 300 ] || exit 9; sleep 0.1
	done
	echo "$b moved from $base" >'"$AGENTS"'/saw
	echo child >child.txt ;;
TASK-004)
	c=$(sed -n "s/^branch: //p" '"$REPO"'/.burl/.workflow/QA/TASK-003-*.md)
	n=0
	until [ "$(git --git-dir='"$REPO"'/.git log -1 --format=%s "refs/heads/$c")" = "Child (TASK-003)" ]; do
		n=$((n+1)); [ $n -lt 600 ] || exit 9; sleep 0.1
	done
	echo "$c squashed" >>'"$AGENTS"'/saw
	echo grand >grand.txt ;;
esac
git add -A && git commit -q -m "$BURL_TASK part"'
	SANDBOX=none MAXP=3 RETRIES=1 TIMEOUT=90s one_agent stacked
	run --separate-stderr git burl watch --once --interval 100ms
	echo "$output"
	assert_success
	[ "$(wc -l <"$AGENTS/saw")" = 2 ]
	[ "$(field TASK-003 stacked_on)" = TASK-002 ]
	[ "$(field TASK-004 stacked_on)" = TASK-003 ]
	# The child is submitted while its parent builds: the queue stages it
	# behind the parent at once (a train's car), and the grandchild's run
	# spans that staging; submitted after the parent's build (a loaded
	# machine), it is restacked once the parent landed, as before trains.
	all_events | jq -e -s '[.[] | select(.action == "restack" and .task == "TASK-003")] | length <= 1' >/dev/null
	! grep -q '"action":"run_tampered"' <(all_events) || { all_events | grep run_tampered >&2; false; }
	# One run each: the children were not failed and retried.
	[ ! -e "$AGENTS/prompts/TASK-003-2.md" ]
	[ ! -e "$AGENTS/prompts/TASK-004-2.md" ]
	for id in TASK-001 TASK-002 TASK-003 TASK-004; do [ "$(bucket_of "$id")" = DONE ]; done
	[ "$(git log -4 --format=%s main | paste -sd,)" = "Grandchild (TASK-004),Child (TASK-003),Parent (TASK-002),Early (TASK-001)" ]
}
