#!/usr/bin/env bats
# DESIGN §19: with sandbox: none the tamper check covers every ref (loose
# and packed), the task's git dir files and the object store's
# alternates. What burl's own transitions move meanwhile (claims, approves
# landing main and deleting branches, fetches) is told apart by the
# workflow's record; everything else a run changed is run_tampered and
# put back.

load helpers
load lifecycle
load watch

setup() {
	watch_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
}

@test "sandbox: none: an agent's git update-ref refs/heads/main <ungated> is run_tampered and main is put back" {
	main=$(git rev-parse main)
	agent mover 'git rm -q --cached README.md >/dev/null
printf "ungated\n" >README.md
tree=$(git add README.md && git write-tree)
c=$(git commit-tree -p HEAD -m ungated "$tree")
git update-ref refs/heads/main "$c"
git reset -q --hard HEAD
mkdir -p src && echo ok >src/ok.txt'
	SANDBOX=none RETRIES=0 one_agent mover
	run git burl watch --once --interval 100ms
	assert_failure 2
	[ "$(git rev-parse main)" = "$main" ]
	[ "$(bucket_of TASK-001)" = BLOCKED ]
	all_events | grep '"action":"run_tampered"' | grep -q 'refs/heads/main moved'
	grep -q 'blocked_reason: .*refs/heads/main moved' "$(task_file TASK-001)"
}

@test "sandbox: none: main moved in the shared git dir itself (not the run's) is run_tampered and put back" {
	main=$(git rev-parse main)
	agent sharedmover 'export GIT_DIR='"$REPO"'/.git
c=$(git commit-tree -p main -m ungated "$(git rev-parse "main^{tree}")")
git update-ref refs/heads/main "$c" && echo moved >'"$AGENTS"'/moved
unset GIT_DIR
mkdir -p src && echo ok >src/ok.txt'
	SANDBOX=none RETRIES=0 one_agent sharedmover
	run git burl watch --once --interval 100ms
	assert_failure 2
	[ -s "$AGENTS/moved" ]
	[ "$(git rev-parse main)" = "$main" ]
	grep -q 'blocked_reason: .*refs/heads/main moved' "$(task_file TASK-001)"
	! grep -q 'blocked_reason: .*in the run.s git dir' "$(task_file TASK-001)" || false
}

@test "sandbox: none: a packed tag deleted, another task's branch moved, a stash, a new tag and alternates written are each run_tampered and put back" {
	git tag v1 && git pack-refs --all
	git burl add "Other" >/dev/null
	wt2=$(claim_wt TASK-002)
	other=$(field TASK-002 branch)
	common=$(git rev-parse --git-common-dir)
	agent vandal 'git tag -d v1 >/dev/null
git update-ref "refs/heads/'"$other"'" HEAD~0
echo scratch >scratch && git stash -u -q
git tag v2
echo /nowhere/objects >"$(git rev-parse --git-common-dir)/objects/info/alternates"
mkdir -p src && echo ok >src/ok.txt'
	# The other branch must really move: give it a commit of its own first.
	git -C "$wt2" commit -q --allow-empty -m "other work"
	before=$(git rev-parse "$other")
	SANDBOX=none RETRIES=0 one_agent vandal
	run git burl watch --once --interval 100ms
	assert_failure 2
	r=$(grep 'blocked_reason:' "$(task_file TASK-001)")
	for what in 'refs/tags/v1 deleted' "refs/heads/$other moved" 'refs/stash created' 'refs/tags/v2 created' 'objects/info/alternates changed'; do
		[[ $r == *"$what"* ]] || { echo "not named: $what in $r" >&2; return 1; }
	done
	[ "$(git rev-parse v1)" = "$(git rev-parse main)" ]
	[ "$(git rev-parse "$other")" = "$before" ]
	! git rev-parse -q --verify refs/stash >/dev/null || false
	! git rev-parse -q --verify refs/tags/v2 >/dev/null || false
	[ ! -e "$common/objects/info/alternates" ]
}

@test "sandbox: none: a run's HEAD pointed at main is run_tampered and put back; nothing lands on main" {
	main=$(git rev-parse main)
	agent header 'gd=$(git rev-parse --git-dir)
mkdir -p src && echo ok >src/ok.txt
echo "ref: refs/heads/main" >"$gd/HEAD"'
	SANDBOX=none RETRIES=0 one_agent header
	run git burl watch --once --interval 100ms
	assert_failure 2
	[ "$(git rev-parse main)" = "$main" ]
	grep -q 'blocked_reason: .*HEAD changed' "$(task_file TASK-001)"
	[ "$(git -C "$(git burl worktree TASK-001)" symbolic-ref HEAD)" = "refs/heads/$(field TASK-001 branch)" ]
}

@test "sandbox: none: what burl itself moves during a run (an approve landing main, its branch deleted, a claim) is not the run's" {
	git burl add "Second" --affects-glob 'task-002/**' >/dev/null
	git burl add "Third" --affects-glob 'task-003/**' >/dev/null
	# TASK-002 runs until TASK-001 is DONE (landed on main, its branch
	# deleted) and TASK-003 was claimed (in DOING, or past it already: its
	# run is short, and a poll can miss it in DOING): all during its run.
	agent patient 'if [ "$BURL_TASK" = TASK-002 ]; then
	n=0
	w='"$REPO"'/.burl/.workflow
	until ls $w/DONE/*/TASK-001-* >/dev/null 2>&1 && { ls $w/DOING/TASK-003-* || ls $w/QA/TASK-003-* || ls $w/DONE/*/TASK-003-*; } >/dev/null 2>&1; do
		n=$((n+1)); [ $n -lt 200 ] || exit 9; sleep 0.1
	done
fi
d=src
[ "$BURL_TASK" = TASK-001 ] || d=$(echo "$BURL_TASK" | tr A-Z a-z)
mkdir -p "$d" && echo "$BURL_TASK" >"$d/work.txt"'
	SANDBOX=none MAXP=2 one_agent patient
	run git burl watch --once --interval 100ms
	assert_success
	[ "$(bucket_of TASK-001)" = DONE ]
	[ "$(bucket_of TASK-002)" = DONE ]
	[ "$(bucket_of TASK-003)" = DONE ]
	! grep -q '"action":"run_tampered"' <(all_events) || false
	# The landing records burl wrote during the runs are kept: each
	# landed commit verifies.
	run git burl verify
	assert_success
}
