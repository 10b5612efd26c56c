#!/usr/bin/env bats
# PRD 14.3: validate runs the diff gates, build_command and the task's
# verify command, reports into the QA Report and keeps the task in QA.

setup() {
	load helpers
	load lifecycle
	new_burl_repo
	git burl add "Jump" --affects src/jump.go --verify 'grep -q jumped src/jump.go && echo verify-ran' >/dev/null
	submitted TASK-001 src/jump.go "$(jump_go 'println("jumped")')" >/dev/null
}

@test "validate runs build_command and verify in the task worktree, logs them and reports PASS" {
	# shellcheck disable=SC2016 # expanded by the build's shell, in the worktree
	set_config build_command '"test -f src/jump.go && echo build-ran-in-$(basename $PWD)"'

	run git burl validate TASK-001
	assert_success
	assert_output_contains "build pass"
	assert_output_contains "verify pass"
	[ "$(bucket_of TASK-001)" = QA ]

	report=$(sed -n '/^## QA Report/,$p' "$(task_file TASK-001)")
	[[ "$report" == *"### Validate PASS"* ]]
	[[ "$report" == *"- build: pass"* ]]
	[[ "$report" == *"- verify: pass"* ]]

	grep -q build-ran-in-task-001-jump "$REPO"/.burl/.workflow/logs/TASK-001/*-build.log
	grep -q verify-ran "$REPO"/.burl/.workflow/logs/TASK-001/*-verify.log
	# Logs are machine-local: never committed.
	[ -z "$(git -C .burl status --porcelain)" ]
	run git burl log --task TASK-001 --action validate
	assert_output_contains "result=pass"

	# approve builds again, usually within the same second: its log must
	# not replace the one the validate report points to.
	run git burl approve TASK-001
	assert_success
	logs=("$REPO"/.burl/.workflow/logs/TASK-001/*-build.log)
	[ "${#logs[@]}" -eq 2 ]
}

@test "validate with a failing build exits 2, keeps the task in QA and puts the output tail in the QA Report" {
	set_config build_command '"echo compiling; echo jump.go:4: undefined: cooldown >&2; exit 7"'

	run git burl validate TASK-001
	assert_failure 2
	assert_output_contains "build_command failed"
	assert_output_contains ".burl/.workflow/logs/TASK-001/"
	[ "$(bucket_of TASK-001)" = QA ]

	report=$(sed -n '/^## QA Report/,$p' "$(task_file TASK-001)")
	[[ "$report" == *"### Validate FAIL"* ]]
	[[ "$report" == *"- build: FAIL"* ]]
	[[ "$report" == *"jump.go:4: undefined: cooldown"* ]]
	ls "$REPO"/.burl/.workflow/logs/TASK-001/*-build.log >/dev/null
	[ -z "$(git -C .burl status --porcelain)" ]
	[ -z "$(locks)" ]
}

@test "validate fails with exit 2 when only the task's verify command fails" {
	git burl add "Land" --affects src/land.go --verify 'grep -q landed src/land.go' >/dev/null
	submitted TASK-002 src/land.go "package src" >/dev/null

	run git burl validate TASK-002
	assert_failure 2
	assert_output_contains "verify command failed"
	[ "$(bucket_of TASK-002)" = QA ]
	grep -q "### Validate FAIL" "$(task_file TASK-002)"
}

@test "a claimed task's verify edited by hand and committed is not what validate runs: exit 2 names the commit" {
	edit_task TASK-001 verify "'grep -q landed src/jump.go'"
	edit=$(git -C .burl rev-parse --short=10 HEAD)

	run git burl validate TASK-001
	assert_failure 2
	assert_output_contains "gate fields (verify) were changed by commit $edit"
	assert_output_contains "not by git burl scope"
	! grep -q "### Validate" "$(task_file TASK-001)" || false
}
