#!/usr/bin/env bats
# DESIGN §27: git burl add --from FILE adds many tasks in one workflow
# commit, all or none, every entry checked before anything is written.

bats_require_minimum_version 1.5.0

setup() {
	load helpers
	load lifecycle
	new_burl_repo
}

@test "add --from a YAML list: every task in READY, one workflow commit with an add event each" {
	git burl add "Before" >/dev/null
	before=$(git rev-parse burl)
	cat >"$BATS_TEST_TMPDIR/plan.yaml" <<'YAML'
- title: Parse the config
  priority: high
  affects_globs: ["src/config/**"]
  tags: [backend, config]
  description: Read config.toml into a struct.
  ac: [unknown keys are errors, defaults documented]
- title: Document the config
  affects: [README.md]
  depends_on: [TASK-001]
YAML
	run git burl add --from "$BATS_TEST_TMPDIR/plan.yaml" --json
	assert_success
	[ "$(jq -r '[.tasks[].id] | join(" ")' <<<"$output")" = "TASK-002 TASK-003" ]
	[ "$(git rev-list --count "$before"..burl)" = 1 ]
	[ "$(bucket_of TASK-002)" = READY ] && [ "$(bucket_of TASK-003)" = READY ]
	[ "$(field TASK-002 priority)" = high ]
	grep -qx -- '- \[ \] unknown keys are errors' "$(task_file TASK-002)"
	grep -q 'Read config.toml into a struct.' "$(task_file TASK-002)"
	grep -qx '  - TASK-001' "$(task_file TASK-003)"
	[ "$(all_events | jq -r 'select(.action == "add") | .task' | tr '\n' ' ')" = "TASK-001 TASK-002 TASK-003 " ]
	[ -z "$(git -C .burl status --porcelain)" ]
}

@test "add --from markdown: one task per '## title' section, its key lines, criteria and text" {
	cat >"$BATS_TEST_TMPDIR/plan.md" <<'MD'
# Sprint 12

Notes before the first section are not a task.

## Cache the index
Priority: critical
Affects-glob: src/index/**
Tags: perf

Keep the index in memory between requests.

- [ ] a second request reads no file

## Log slow queries
Slow queries go to the log.
MD
	run git burl add --from "$BATS_TEST_TMPDIR/plan.md"
	assert_success
	assert_output_contains "Created 2 task(s) in READY in one commit"
	[ "$(field TASK-001 title)" = "Cache the index" ]
	[ "$(field TASK-001 priority)" = critical ]
	grep -qx '  - src/index/\*\*' "$(task_file TASK-001)"
	grep -qx -- '- \[ \] a second request reads no file' "$(task_file TASK-001)"
	[ "$(field TASK-002 title)" = "Log slow queries" ]
	grep -q 'Slow queries go to the log.' "$(task_file TASK-002)"
}

@test "add --from JSON on standard input" {
	run git burl add --from - <<<'[{"title":"One","tags":["x"]},{"title":"Two"}]'
	assert_success
	[ "$(field TASK-002 title)" = Two ]
}

@test "add --from with one bad entry adds nothing and names the entry and its line" {
	before=$(git rev-parse burl)
	cat >"$BATS_TEST_TMPDIR/plan.yaml" <<'YAML'
- title: Fine
- title: Escapes
  affects: [../outside.txt]
- title: Also fine
YAML
	run git burl add --from "$BATS_TEST_TMPDIR/plan.yaml"
	assert_failure 1
	assert_output_contains "nothing was added"
	assert_output_contains "plan.yaml:2: task 2"
	[ "$(git rev-parse burl)" = "$before" ]
	[ -z "$(ls .burl/.workflow/READY/)" ]
	printf -- '- title: A\n  colour: red\n' >"$BATS_TEST_TMPDIR/bad.yaml"
	run git burl add --from "$BATS_TEST_TMPDIR/bad.yaml"
	assert_failure 1
	assert_output_contains 'unknown key "colour"'
	printf -- '- title: A\n  depends_on: [TASK-042]\n' >"$BATS_TEST_TMPDIR/dep.yaml"
	run git burl add --from "$BATS_TEST_TMPDIR/dep.yaml"
	assert_failure 1
	assert_output_contains "TASK-042: no such task"
	printf -- '- title: A\n- title: a\n' >"$BATS_TEST_TMPDIR/dup.yaml"
	run git burl add --from "$BATS_TEST_TMPDIR/dup.yaml"
	assert_failure 1
	[ "$(git rev-parse burl)" = "$before" ]
	run git burl add "Title" --from "$BATS_TEST_TMPDIR/plan.yaml"
	assert_failure 1
}

@test "add --from: a task depends on another of the same file by its id or its title, in any order" {
	git burl add "Already there" >/dev/null
	cat >"$BATS_TEST_TMPDIR/plan.yaml" <<'YAML'
- title: Document the config
  depends_on: [parse, TASK-001]
- title: Parse the config
  id: parse
- title: Ship it
  depends_on: [document the config]
YAML
	run git burl add --from "$BATS_TEST_TMPDIR/plan.yaml"
	assert_success
	[ "$(field TASK-003 title)" = "Parse the config" ]
	[ "$(sed -n '/^depends_on:/,/^[a-z_]*:/p' "$(task_file TASK-002)" | grep -c '^  - ')" = 2 ]
	grep -qx '  - TASK-003' "$(task_file TASK-002)"
	grep -qx '  - TASK-001' "$(task_file TASK-002)"
	grep -qx '  - TASK-002' "$(task_file TASK-004)"
	# The dependency holds: Ship it cannot be claimed before its docs land.
	run git burl claim TASK-004
	assert_failure
	cat >"$BATS_TEST_TMPDIR/plan.md" <<'MD'
## Index
Id: idx

## Query
Depends-on: idx
MD
	run git burl add --from "$BATS_TEST_TMPDIR/plan.md"
	assert_success
	grep -qx '  - TASK-005' "$(task_file TASK-006)"
}

@test "add --from: a dependency cycle within the file, or a task depending on itself, adds nothing" {
	before=$(git rev-parse burl)
	cat >"$BATS_TEST_TMPDIR/plan.yaml" <<'YAML'
- title: A
  depends_on: [B]
- title: B
  depends_on: [A]
YAML
	run git burl add --from "$BATS_TEST_TMPDIR/plan.yaml"
	assert_failure 1
	assert_output_contains "nothing was added"
	assert_output_contains "cycle"
	printf -- '- title: A\n  id: a\n  depends_on: [a]\n' >"$BATS_TEST_TMPDIR/self.yaml"
	run git burl add --from "$BATS_TEST_TMPDIR/self.yaml"
	assert_failure 1
	assert_output_contains "depends on itself"
	[ "$(git rev-parse burl)" = "$before" ]
}
