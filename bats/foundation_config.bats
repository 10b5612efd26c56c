#!/usr/bin/env bats
# .burl/.workflow/config.yaml as a user edits it: unknown keys warn,
# invalid values stop every verb with the key, file and line.

load helpers
load foundation

setup() {
	new_burl_repo
	add_task "Existing"
	CFG="$WF/config.yaml"
}

# line_of KEY: the line number of KEY in config.yaml.
line_of() {
	grep -n "^$1:" "$CFG" | cut -d: -f1
}

@test "an unknown key warns with the file, line and nearest key, and the command still works" {
	printf 'max_paralel: 5\n' >>"$CFG"
	line=$(line_of max_paralel)

	run git burl status
	assert_success
	assert_output_contains "burl: warning: .burl/.workflow/config.yaml:$line: unknown key \"max_paralel\" ignored (did you mean max_parallel?)"
	assert_output_contains "TASK-001"

	run git burl add "Still works"
	assert_success
	assert_output_contains "warning"
	[ -f "$WF/READY/TASK-002-still-works.md" ]

	# The warning goes to stderr: --json output stays one clean document.
	git burl status --json >"$BATS_TEST_TMPDIR/out.json" 2>"$BATS_TEST_TMPDIR/err"
	grep -q 'max_paralel' "$BATS_TEST_TMPDIR/err"
	[ "$(head -c 12 "$BATS_TEST_TMPDIR/out.json")" = '{"ok":true,"' ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/out.json")" -eq 1 ]
}

@test "an invalid value stops every verb with the key, file and line" {
	sed -i.bak 's/^max_parallel: 3/max_parallel: lots/' "$CFG"
	line=$(line_of max_parallel)
	head=$(burl_head)

	for verb in status "show 1" log "add x"; do
		# shellcheck disable=SC2086
		run git burl $verb
		assert_failure 1 || { echo "verb: $verb"; return 1; }
		assert_output_contains ".burl/.workflow/config.yaml:$line: max_parallel: must be a whole number >= 0, not \"lots\""
		assert_output_contains "Fix: edit .burl/.workflow/config.yaml"
	done
	[ "$(burl_head)" = "$head" ]
	[ ! -e "$WF/READY/TASK-002-x.md" ]

	run git burl status --json
	assert_failure 1
	[[ "$output" == '{"ok":false,"error":{"kind":"user","message":"invalid configuration: .burl/.workflow/config.yaml:'"$line"': max_parallel'* ]]
}

@test "other invalid values name their key and line" {
	cp "$CFG" "$BATS_TEST_TMPDIR/good.yaml"
	check() { # KEY BAD-VALUE EXPECTED-TEXT
		cp "$BATS_TEST_TMPDIR/good.yaml" "$CFG"
		sed -i.bak "s|^$1:.*|$1: $2|" "$CFG"
		local line
		line=$(line_of "$1")
		run git burl status
		assert_failure 1 || { echo "$1: $2"; return 1; }
		assert_output_contains ".burl/.workflow/config.yaml:$line: $1: $3" || { echo "$1: $2"; return 1; }
	}
	check merge_strategy octopus 'must be one of rebase_ff_only, ff_only, squash, manual, not "octopus"'
	check workflow_auto_push maybe 'must be true or false'
	check lock_stale_minutes 0 'must be a whole number >= 1'
	check qa_max_attempts "[3]" 'must be a whole number >= 1'
	check main_branch "-rf" 'must be a branch or remote name'
	check build_timeout soon 'must be a positive duration'
	check conflict_policy panic 'must be one of fail, warn, ignore'
	check stub_check_extensions go 'must be a list'
}

@test "a key set twice names both lines" {
	printf 'max_parallel: 9\n' >>"$CFG"
	first=$(line_of max_parallel | head -n1)
	second=$(line_of max_parallel | tail -n1)
	run git burl status
	assert_failure 1
	assert_output_contains "config.yaml:$second: max_parallel: set twice (first on line $first)"
}

@test "an invalid stub pattern names the entry's line" {
	# Replace the first stub pattern with an unbalanced regex.
	first=$(grep -n '^  - ' "$CFG" | head -n1 | cut -d: -f1)
	sed -i.bak "${first}s/.*/  - \"fix(me\"/" "$CFG"
	run git burl status
	assert_failure 1
	assert_output_contains "config.yaml:$first: stub_patterns: entry 1 \"fix(me\" is not a valid regular expression"
}

@test "broken YAML in config.yaml names the line" {
	printf 'remote: [\n' >>"$CFG"
	line=$(line_of remote | tail -n1)
	run git burl status
	assert_failure 1
	assert_output_contains "config.yaml:$line: (file): invalid YAML"
	refute_output_contains "config.yaml:0:"
}

@test "a missing config.yaml means burl is not initialised" {
	rm "$CFG"
	run git burl status
	assert_failure 1
	assert_output_contains "Fix: git burl init"
	run git burl init
	assert_success
	grep -Eq '^max_parallel: 3( |$)' "$CFG"
	run git burl status
	assert_success
}
