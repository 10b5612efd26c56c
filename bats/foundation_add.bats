#!/usr/bin/env bats
# git burl add: the task file, its frontmatter, the commit, and bad input.

load helpers
load foundation

setup() {
	new_burl_repo
}

@test "add creates TASK-001-<slug>.md in READY, one commit on burl" {
	commits=$(count_commits)
	run git burl add "Implement player jump!"
	assert_success
	assert_output_contains "Created TASK-001 in READY: .burl/.workflow/READY/TASK-001-implement-player-jump.md"

	f="$WF/READY/TASK-001-implement-player-jump.md"
	[ -f "$f" ]
	frontmatter "$f" >"$BATS_TEST_TMPDIR/fm"
	grep -qx 'id: TASK-001' "$BATS_TEST_TMPDIR/fm"
	grep -qx 'title: Implement player jump!' "$BATS_TEST_TMPDIR/fm"
	grep -qx 'priority: medium' "$BATS_TEST_TMPDIR/fm"
	grep -Eqx 'created: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z' "$BATS_TEST_TMPDIR/fm"
	grep -qx 'base_sha: null' "$BATS_TEST_TMPDIR/fm"
	grep -qx '## QA Report' "$f"

	# Exactly one commit, holding the task file and the event, nothing else.
	[ "$(count_commits)" -eq $((commits + 1)) ]
	[ "$(git -C .burl log -1 --format=%s)" = "burl: add TASK-001 Implement player jump!" ]
	[ "$(git -C .burl show --name-only --format= HEAD | LC_ALL=C sort | tr '\n' ' ')" = ".workflow/READY/TASK-001-implement-player-jump.md $(event_shard) " ]
	[ -z "$(git -C .burl status --porcelain)" ]
	[ -z "$(git status --porcelain)" ]
	[ "$(tail -n1 "$REPO/.burl/$(event_shard)" | grep -c '"task":"TASK-001","action":"add"')" -eq 1 ]

	# IDs are sequential in add order.
	add_task "Second"
	[ -f "$WF/READY/TASK-002-second.md" ]
	[ "$(count_commits)" -eq $((commits + 2)) ]
}

@test "every add flag lands in the frontmatter" {
	add_task "Base task"
	printf '## Objective\nShip the jump.\n\n## Context\nSee the design doc.\n' >"$BATS_TEST_TMPDIR/body.md"

	run git burl add "Player jump" --priority high \
		--affects src/jump.go --affects "docs/a b.md" \
		--affects-glob 'src/player/**' --affects-glob 'assets/*.png' \
		--must-not-touch 'src/net/**' \
		--depends-on 1 \
		--tags feature,player --tags ui \
		--verify 'go vet ./...' \
		--body-file "$BATS_TEST_TMPDIR/body.md"
	assert_success

	f="$WF/READY/TASK-002-player-jump.md"
	frontmatter "$f" >"$BATS_TEST_TMPDIR/fm"
	expect() {
		grep -qxF -- "$1" "$BATS_TEST_TMPDIR/fm" || {
			echo "frontmatter lacks the line: $1" >&2
			cat "$BATS_TEST_TMPDIR/fm" >&2
			return 1
		}
	}
	expect 'priority: high'
	expect 'affects:'
	expect '  - src/jump.go'
	expect '  - docs/a b.md'
	expect 'affects_globs:'
	expect '  - src/player/**'
	expect '  - assets/*.png'
	expect 'must_not_touch:'
	expect '  - src/net/**'
	expect 'depends_on:'
	expect '  - TASK-001'
	expect 'tags:'
	expect '  - feature'
	expect '  - player'
	expect '  - ui'
	expect 'verify: go vet ./...'

	# The body is the given file, plus the QA Report section burl appends to.
	grep -qx 'Ship the jump.' "$f"
	grep -qx 'See the design doc.' "$f"
	grep -qx '## QA Report' "$f"
	[ "$(grep -c '^## Objective$' "$f")" -eq 1 ]

	run git burl show 2
	assert_success
	assert_output_contains "affects:       src/jump.go, docs/a b.md"
	assert_output_contains "depends_on:    TASK-001"
	assert_output_contains "verify:        go vet ./..."
}

@test "add --body-file - reads the body from standard input" {
	run bash -c 'printf "## Objective\nFrom a pipe.\n" | git burl add "Piped body" --body-file -'
	assert_success
	grep -qx 'From a pipe.' "$WF/READY/TASK-001-piped-body.md"
}

@test "add --json prints the new task" {
	git burl add "Json task" --priority low --json >"$BATS_TEST_TMPDIR/out.json"
	have_python || skip "python3 not installed"
	json_check "$BATS_TEST_TMPDIR/out.json" \
		'd["ok"] is True' \
		'd["task"]["id"] == "TASK-001"' \
		'd["task"]["priority"] == "low"' \
		'd["task"]["bucket"] == "READY"' \
		'd["task"]["path"] == ".burl/.workflow/READY/TASK-001-json-task.md"'
}

# reject ARGS...: git burl add ARGS must exit 1 with $WANT in its message and
# leave no trace: no task file, no commit, no event.
reject() {
	local head events
	head=$(burl_head)
	events=$(all_events | wc -l)
	run git burl add "$@"
	assert_failure 1 || { echo "args: $*" >&2; return 1; }
	assert_output_contains "$WANT" || { echo "args: $*" >&2; return 1; }
	[ "$(burl_head)" = "$head" ] || { echo "a commit was made for: $*" >&2; return 1; }
	[ "$(all_events | wc -l)" -eq "$events" ] || { echo "an event was logged for: $*" >&2; return 1; }
	[ -z "$(ls "$WF/READY")" ] || { echo "a task file was written for: $*" >&2; ls "$WF/READY" >&2; return 1; }
	[ -z "$(git -C .burl status --porcelain)" ]
	[ -z "$(ls "$WF/locks")" ] || { echo "a lock was left behind: $(ls "$WF/locks")" >&2; return 1; }
}

@test "add refuses paths that leave the repository" {
	WANT='leaves the repository (..)' reject "t" --affects ../x
	WANT='leaves the repository' reject "t" --affects src/../../x
	WANT='must be relative to the repository root' reject "t" --affects /etc/passwd
	WANT='--affects-glob' reject "t" --affects-glob '../**'
	WANT='--must-not-touch' reject "t" --must-not-touch /abs/**
	WANT='not a valid glob' reject "t" --affects-glob 'src/[a'
	[ ! -e "$BATS_TEST_TMPDIR/x" ]

	# The message says what failed and how to put it right.
	run git burl add "t" --affects ../x
	assert_output_contains "Cannot add the task"
	assert_output_contains "Fix: give paths relative to the repository root"
}

@test "add refuses a bad priority, title or body file" {
	WANT="urgent" reject "t" --priority urgent
	# The message lists the accepted priorities.
	assert_output_contains "critical"
	assert_output_contains "low"
	WANT="TITLE" reject ""
	WANT="TITLE" reject "   "
	WANT="TITLE" reject
	WANT="TITLE" reject "one" "two"
	WANT="one line" reject "$(printf 'two\nlines')"
	WANT="--body-file" reject "t" --body-file "$BATS_TEST_TMPDIR/no-such-file.md"
	WANT="unknown flag" reject "t" --prio high
}

@test "add --depends-on must name an existing task" {
	WANT="--depends-on TASK-099: no such task" reject "t" --depends-on TASK-099
	WANT='--depends-on: "../x" is not a task ID' reject "t" --depends-on ../x
	WANT="not a task ID" reject "t" --depends-on TASK-abc
	add_task "Now there is one"
	run git burl add "Depends" --depends-on task-001
	assert_success
	grep -qx '  - TASK-001' "$WF/READY/TASK-002-depends.md"
}

@test "add picks the next ID across every bucket" {
	add_task "Ready one"
	# Hand-place a task in DONE with a higher ID, as a finished workflow has.
	sed -e 's/TASK-001/TASK-041/' -e 's/Ready one/Done long ago/' "$WF/READY/TASK-001-ready-one.md" >"$WF/DONE/TASK-041-done-long-ago.md"
	add_task "Next"
	[ -f "$WF/READY/TASK-042-next.md" ]
}

@test "add --description and --ac write the body's objective and checklist instead of the template's placeholders" {
	git burl add "Jump" --description "The player jumps with space" --ac "space makes the player jump" --ac "a second press does nothing mid-air" >/dev/null
	f=$(ls .burl/.workflow/READY/TASK-001-*.md)
	grep -qx "The player jumps with space" "$f"
	grep -qx -- "- \[ \] space makes the player jump" "$f"
	grep -qx -- "- \[ \] a second press does nothing mid-air" "$f"
	! grep -q "Criterion 1" "$f" || false
	! grep -q "Single sentence describing" "$f" || false
	run git burl add "Both" --description x --body-file /dev/null
	assert_failure 1
	assert_output_contains "either --body-file or --description/--ac"
}
