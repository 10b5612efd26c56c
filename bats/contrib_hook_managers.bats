#!/usr/bin/env bats
# contrib/pre-commit and contrib/lefthook with the real tools: each blocks a
# commit adding a TODO on a task branch and passes a clean one.

load helpers

# task_with_manager: commit (on main) what the hook manager reads, add and
# claim TASK-001; $WT is its worktree.
task_with_manager() {
	git add -A
	git commit -q -m "hook manager config"
	git push -q origin main
	git burl add "Jump" --affects-glob 'src/**' >/dev/null
	WT=$(git burl claim TASK-001 | tail -n 1)
}

# commits_are_gated: in $WT a TODO is refused with burl's message, a clean
# change is committed with the Burl-Task trailer, and a push of the task
# branch runs the pre-push check.
commits_are_gated() {
	cd "$WT"
	printf 'package src\n// TODO: later\n' >src/jump.go
	git add src/jump.go
	run git commit -q -m "stub"
	[ "$status" -ne 0 ] || { echo "a TODO was committed: $output"; return 1; }
	assert_output_contains "Stub patterns found in added lines"
	[ "$(git rev-list --count HEAD ^main)" -eq 0 ]

	printf 'package src\nfunc Jump() {}\n' >src/jump.go
	git add src/jump.go
	run git commit -q -m "jump"
	assert_success
	[ "$(git log -1 --format='%(trailers:key=Burl-Task,valueonly)' | sed '/^$/d')" = TASK-001 ]

	# A stub slipped in with --no-verify is caught by the pre-push check.
	printf 'package src\nfunc Jump() {}\n// FIXME\n' >src/jump.go
	git commit -q --no-verify -am "sneaky"
	run git push -q origin HEAD
	[ "$status" -ne 0 ] || { echo "the push passed: $output"; return 1; }
	assert_output_contains "FIXME"
	git reset -q --hard HEAD~1
	run git push -q origin HEAD
	assert_success
}

@test "pre-commit (contrib/pre-commit/.pre-commit-hooks.yaml) gates commits and pushes on a task branch" {
	command -v pre-commit >/dev/null || skip "pre-commit is not installed (Debian: apt-get install pre-commit)"
	new_burl_repo
	# The manifest served from a repository of its own, as pre-commit
	# fetches hooks.
	hooks_repo=$BATS_TEST_TMPDIR/burl-hooks
	mkdir -p "$hooks_repo"
	cp "$BATS_TEST_DIRNAME/../contrib/pre-commit/.pre-commit-hooks.yaml" "$hooks_repo/"
	git -C "$hooks_repo" init -q
	git -C "$hooks_repo" add -A
	git -C "$hooks_repo" commit -q -m hooks
	cat >.pre-commit-config.yaml <<-YAML
		repos:
		  - repo: $hooks_repo
		    rev: $(git -C "$hooks_repo" rev-parse HEAD)
		    hooks:
		      - id: burl-commit-msg
		      - id: burl-pre-push
	YAML
	run pre-commit install -t commit-msg -t pre-push
	assert_success
	task_with_manager
	commits_are_gated
}

@test "lefthook (contrib/lefthook/lefthook.yml) gates commits and pushes on a task branch" {
	command -v lefthook >/dev/null || skip "lefthook is not installed (npm install -g lefthook)"
	new_burl_repo
	cp "$BATS_TEST_DIRNAME/../contrib/lefthook/lefthook.yml" lefthook.yml
	run lefthook install
	assert_success
	task_with_manager
	commits_are_gated
}
