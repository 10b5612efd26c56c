#!/usr/bin/env bats
# The workflow branch is untrusted input (issue 15): whoever can push to
# `burl` writes any bytes into task files, config and the tree. Each case
# is an attacker's commit on burl, pushed to origin and pulled by a victim
# clone. Nothing may run, nothing may be written outside the repository,
# nothing may be lost, and the error names the file and the field.

load helpers
load lifecycle

# setup_attack: $REPO is the attacker's clone (burl initialised, pushed),
# $VICTIM a second clone attached to the same workflow, $OUTSIDE a folder
# outside both that must stay empty.
setup_attack() {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	git push -q origin burl
	OUTSIDE="$BATS_TEST_TMPDIR/outside"
	mkdir -p "$OUTSIDE"
	VICTIM="$BATS_TEST_TMPDIR/victim"
	clone_repo "$VICTIM"
	(cd "$VICTIM" && git burl init >/dev/null)
}

# attack MSG: commit everything changed in the attacker's .burl and push.
attack() {
	git -C "$REPO/.burl" add -A
	git -C "$REPO/.burl" commit -q -m "$1"
	git -C "$REPO/.burl" push -q origin burl
}

# victim_pull: the victim takes the workflow branch from origin.
victim_pull() {
	(cd "$VICTIM" && git burl sync --pull >/dev/null 2>&1) || true
}

# set_field FILE KEY VALUE: write a raw frontmatter line (VALUE as YAML,
# byte for byte: ENVIRON, unlike awk -v, keeps backslashes).
set_field() {
	local tmp="$1.tmp"
	if grep -q "^$2:" "$1"; then
		K="$2" V="$3" awk 'index($0, ENVIRON["K"] ":") == 1 { print ENVIRON["K"] ": " ENVIRON["V"]; next } { print }' "$1" >"$tmp"
	else
		K="$2" V="$3" awk 'NR == 2 { print ENVIRON["K"] ": " ENVIRON["V"] } { print }' "$1" >"$tmp"
	fi
	mv "$tmp" "$1"
}

outside_untouched() {
	[ -z "$(ls -A "$OUTSIDE")" ] || { echo "written outside the repository: $(ls -A "$OUTSIDE")" >&2; return 1; }
}

@test "base_sha '--output=<path>' never reaches git: the task is malformed, named with file and line, nothing is written" {
	setup_attack
	(cd "$VICTIM" && git burl claim TASK-001 >/dev/null && cd .worktrees/task-001-feature && commit_file README.md 'changed' "out of scope" && printf '// TODO\n' >src/x.go && git add src/x.go && git commit -q -m todo)
	(cd "$VICTIM" && git burl sync --push >/dev/null 2>&1)
	git -C "$REPO" burl sync --pull >/dev/null 2>&1
	f=$(task_file TASK-001)
	set_field "$f" base_sha "--output=$OUTSIDE/pwned"
	attack "poison base_sha"
	victim_pull
	before=$(cat "$VICTIM"/.burl/.workflow/DOING/TASK-001-*.md)
	for verb in submit validate; do
		run git -C "$VICTIM" burl "$verb" TASK-001
		assert_failure 1
		assert_output_contains ".burl/.workflow/DOING/TASK-001-feature.md"
		assert_output_contains "base_sha"
	done
	(cd "$VICTIM/.worktrees/task-001-feature" && git burl hooks install >/dev/null && run git push -q origin task-001-feature) || true
	outside_untouched
	[ "$(cat "$VICTIM"/.burl/.workflow/DOING/TASK-001-*.md)" = "$before" ]
}

@test "worktree '.git/hooks' with a hostile task branch: claim refuses, no hook runs" {
	setup_attack
	git switch -q -c task-001-feature
	mkdir -p hooks-payload
	printf '#!/bin/sh\ntouch %s/pwned\n' "$OUTSIDE" >post-checkout
	chmod +x post-checkout
	git add post-checkout && git commit -q -m payload
	git push -q origin task-001-feature
	git switch -q main
	f=$(task_file TASK-001)
	set_field "$f" worktree ".git/hooks"
	set_field "$f" branch "task-001-feature"
	attack "worktree in .git/hooks"
	victim_pull
	run git -C "$VICTIM" burl claim TASK-001
	assert_failure 1
	assert_output_contains "worktree"
	assert_output_contains "TASK-001-feature.md"
	outside_untouched
	[ ! -e "$VICTIM/.git/hooks/post-checkout" ]
}

@test "a symlink committed on burl: worktree through it is refused; symlinked locks/ or a bucket stops every verb, doctor names it, repair deletes nothing" {
	setup_attack
	ln -s "$OUTSIDE" .burl/.workflow/esc
	f=$(task_file TASK-001)
	set_field "$f" worktree ".burl/.workflow/esc/wt"
	attack "escape through a link"
	victim_pull
	run git -C "$VICTIM" burl claim TASK-001
	assert_failure 1
	assert_output_contains "worktree"
	outside_untouched

	git -C .burl rm -q .workflow/esc
	git -C .burl checkout -q HEAD~1 -- "${f#"$REPO/.burl/"}"
	rm -rf .burl/.workflow/locks
	ln -s "$OUTSIDE" .burl/.workflow/locks
	attack "locks elsewhere"
	victim_pull
	[ -L "$VICTIM/.burl/.workflow/locks" ]
	for cmd in status "claim TASK-001"; do
		# shellcheck disable=SC2086
		run git -C "$VICTIM" burl $cmd
		assert_failure 1
		assert_output_contains ".burl/.workflow/locks is a symbolic link"
	done
	run git -C "$VICTIM" burl doctor --json
	assert_failure 2
	jq -e '.findings[] | select(.kind == "symlink" and .path == ".burl/.workflow/locks")' <<<"$output" >/dev/null
	head=$(git -C "$VICTIM" rev-parse burl)
	run git -C "$VICTIM" burl doctor --repair --force
	[ "$(git -C "$VICTIM" rev-parse burl)" = "$head" ]
	[ -f "$VICTIM"/.burl/.workflow/READY/TASK-001-feature.md ]
	outside_untouched
}

@test "a symlinked bucket: claim moves nothing out of the repository" {
	setup_attack
	rm -rf .burl/.workflow/DOING
	ln -s "$OUTSIDE" .burl/.workflow/DOING
	attack "DOING elsewhere"
	victim_pull
	run git -C "$VICTIM" burl claim TASK-001
	assert_failure 1
	assert_output_contains "DOING is a symbolic link"
	[ -f "$VICTIM"/.burl/.workflow/READY/TASK-001-feature.md ]
	outside_untouched
}

@test "approve of a DONE task does not trust its fields: worktree .burl and branch main are refused, nothing removed" {
	setup_attack
	submitted TASK-001 src/a.go 'package src' >/dev/null
	git burl approve TASK-001 >/dev/null
	git push -q origin burl
	f=$(task_file TASK-001)
	set_field "$f" worktree ".burl"
	attack "DONE task points at .burl"
	victim_pull
	run git -C "$VICTIM" burl approve TASK-001
	assert_failure 1
	assert_output_contains "worktree"
	[ -d "$VICTIM/.burl/.workflow" ]

	set_field "$f" worktree ".worktrees/task-001-feature"
	set_field "$f" branch "main"
	attack "DONE task names main"
	victim_pull
	git -C "$VICTIM" switch -q -c elsewhere
	run git -C "$VICTIM" burl approve TASK-001
	assert_failure 1
	assert_output_contains "branch \"main\" is the repository's main branch"
	git -C "$VICTIM" rev-parse -q --verify refs/heads/main >/dev/null
}

@test "a newline in worktree and a refs/heads/ branch make the task malformed; no nested ref is created" {
	setup_attack
	f=$(task_file TASK-001)
	set_field "$f" worktree '".worktrees/x\nworktree /tmp"'
	attack "newline in worktree"
	victim_pull
	run git -C "$VICTIM" burl status
	assert_output_contains "Malformed task files"
	assert_output_contains "worktree"
	set_field "$f" worktree ".worktrees/task-001-feature"
	set_field "$f" branch "refs/heads/zz"
	attack "full ref as branch"
	victim_pull
	run git -C "$VICTIM" burl claim TASK-001
	assert_failure 1
	assert_output_contains "branch \"refs/heads/zz\" is not a valid short branch name"
	! git -C "$VICTIM" rev-parse -q --verify refs/heads/refs/heads/zz
}

@test "a newline in a task's file name: block and unblock commit it whole, nothing is left staged" {
	setup_attack
	f=$(task_file TASK-001)
	git -C "$REPO/.burl" mv "${f#"$REPO/.burl/"}" ".workflow/READY/TASK-001-a
b.md"
	attack "a newline in a file name"
	victim_pull
	cd "$VICTIM"
	run git burl block TASK-001 --reason "the file name is odd"
	assert_success
	[ "$(REPO=$VICTIM bucket_of TASK-001)" = BLOCKED ]
	[ -z "$(git -C .burl status --porcelain)" ]
	git -C .burl ls-tree -r --name-only -z HEAD | tr '\0' '\n' | grep -qx '.workflow/BLOCKED/TASK-001-a'
	run git burl unblock TASK-001
	assert_success
	[ "$(REPO=$VICTIM bucket_of TASK-001)" = READY ]
	[ -z "$(git -C .burl status --porcelain)" ]
	run git burl doctor
	assert_success
}

@test "a title with escapes is shown, not obeyed: no forged status line, no terminal escape" {
	setup_attack
	f=$(task_file TASK-001)
	set_field "$f" title '"x\nREADY 99 forged line\e[2J\u009b31m"'
	attack "hostile title"
	victim_pull
	for cmd in status "show TASK-001" log; do
		# shellcheck disable=SC2086
		run git -C "$VICTIM" burl $cmd
		assert_success
		! grep -q $'\x1b' <<<"$output"
		! grep -q $'\xc2\x9b' <<<"$output"
		! grep -q '^READY 99' <<<"$output"
	done
	run git -C "$VICTIM" burl status
	assert_output_contains 'x\nREADY 99 forged line\x1b[2J\u009b31m'
}

@test "two files for one ID: status and doctor report the duplicate, claim names both files and exits 1" {
	setup_attack
	sed 's/^id: TASK-001$/id: TASK-001/' "$(task_file TASK-001)" >.burl/.workflow/READY/TASK-0001-other.md
	attack "a second file for TASK-001"
	victim_pull
	run git -C "$VICTIM" burl claim
	assert_failure 1
	assert_output_contains "TASK-001-feature.md"
	assert_output_contains "TASK-0001-other.md"
	run git -C "$VICTIM" burl status --json
	[ "$(jq -r '.duplicates[0].id' <<<"$output")" = TASK-001 ]
	[ "$(jq -r '[.tasks[] | select(.id == "TASK-001") | .suggest] | unique | join(",")' <<<"$output")" = "" ]
	run git -C "$VICTIM" burl doctor --json
	assert_failure 2
	jq -e '.findings[] | select(.kind == "duplicate_task" and .task == "TASK-001")' <<<"$output" >/dev/null
}

@test "stub gate bypasses in the task's own scope: a -diff attribute and a NUL byte hide nothing" {
	new_burl_repo
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	wt=$(claim_wt TASK-001)
	(cd "$wt" && printf '*.py -diff\n' >src/.gitattributes && printf 'def f():\n    raise NotImplementedError  # TODO\n' >src/f.py &&
		printf 'fn f() {\n    unimplemented!()\n}\n\0\n' >src/g.rs && git add -A && git commit -q -m "sneaky")
	run git burl submit TASK-001
	assert_failure 2
	assert_output_contains "src/f.py"
	assert_output_contains "src/g.rs"
	[ "$(bucket_of TASK-001)" = DOING ]
}

@test "commit-msg checks an amend at a rebase -i stop (detached HEAD); a cherry-pick the hook never sees is still refused by submit" {
	new_burl_repo
	git burl hooks install >/dev/null
	git burl add "Feature" --affects-glob 'src/**' >/dev/null
	wt=$(claim_wt TASK-001)
	cd "$wt"
	commit_file src/a.go 'package src' "first"
	commit_file src/b.go 'package src' "second"
	GIT_SEQUENCE_EDITOR="sed -i 1s/^pick/edit/" git rebase -q -i HEAD~2 >/dev/null 2>&1
	[ -z "$(git symbolic-ref -q HEAD)" ]
	printf 'changed\n' >README.md
	git add README.md
	run git commit -q --amend --no-edit
	assert_failure 1
	assert_output_contains "Scope violation"
	assert_output_contains "README.md"
	git reset -q --hard HEAD
	git rebase --abort
	# git runs no commit-msg hook for cherry-pick: submit catches it.
	git switch -q -c elsewhere main
	commit_file README.md 'out of scope' "outside"
	git switch -q task-001-feature
	git cherry-pick elsewhere >/dev/null
	run git burl submit TASK-001
	assert_failure 2
	assert_output_contains "README.md"
}
