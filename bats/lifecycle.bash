# Helpers for the lifecycle tests (claim → submit → validate → approve and
# the ways back). Load after helpers: `load helpers; load lifecycle`.
# shellcheck shell=bash

# task_file ID: the task's file, in whatever bucket it is.
task_file() {
	local f
	for f in "$REPO"/.burl/.workflow/*/"$1"-*.md "$REPO"/.burl/.workflow/DONE/*/"$1"-*.md; do
		[ -e "$f" ] && echo "$f" && return 0
	done
	echo "task_file: no file for $1" >&2
	return 1
}

# field ID KEY: a frontmatter value as written in the task file.
field() {
	local f
	f=$(task_file "$1") || return 1
	awk -v k="$2" 'NR > 1 && /^---/ { exit } index($0, k ": ") == 1 { print substr($0, length(k) + 3); exit }' "$f"
}

# edit_task ID KEY VALUE: change a frontmatter line by hand and commit it,
# the way a human edits a task file (who then trusts a verify they wrote).
edit_task() {
	local f
	f=$(task_file "$1") || return 1
	sed -i.bak "s|^$2:.*|$2: $(sed_escape "$3")|" "$f" && rm -f "$f.bak"
	git -C "$REPO/.burl" commit -q -m "edit $1" -- "${f#"$REPO/.burl/"}" || return 1
	case $2 in verify) trust_all ;; esac
}

# claim_wt ID: claim a task and print its worktree (claim's last line).
claim_wt() {
	local out
	out=$(git burl claim "$@" 2>&1) || { echo "$out" >&2; return 1; }
	printf '%s\n' "$out" | tail -n 1
}

# jump_go BODY: the content of the fixture's src/jump.go with Jump's body
# replaced; the pre-existing TODO on line 3 stays.
jump_go() {
	printf 'package src\n\n// existing TODO: not ours\nfunc Jump() { %s }' "$1"
}

# submitted ID FILE CONTENT: claim ID, commit FILE in its worktree and
# submit; prints the worktree path.
submitted() {
	local wt out
	wt=$(claim_wt "$1") || return 1
	(cd "$wt" && commit_file "$2" "$3") || return 1
	out=$(git -C "$wt" burl submit "$1" 2>&1) || { echo "$out" >&2; return 1; }
	echo "$wt"
}

# locks: the lock files present (none is the normal state between commands).
locks() {
	find "$REPO/.burl/.workflow/locks" -name '*.lock' -exec basename {} \; 2>/dev/null | sort
}

# task_ids [BUCKET...]: the IDs of the task files in those buckets (default:
# every bucket), one a line; a task in two buckets is listed twice.
task_ids() {
	local buckets=(READY DOING QA DONE BLOCKED PROPOSED) b f
	[ $# -eq 0 ] || buckets=("$@")
	for b in "${buckets[@]}"; do
		for f in "$REPO/.burl/.workflow/$b"/TASK-*.md "$REPO/.burl/.workflow/$b"/[0-9][0-9][0-9][0-9]-[0-9][0-9]/TASK-*.md; do
			[[ ${f##*/} =~ ^(TASK-[0-9]+) ]] && echo "${BASH_REMATCH[1]}"
		done
	done
	return 0
}

# task_branches: the local task branches.
task_branches() {
	git -C "$REPO" for-each-ref --format='%(refname:short)' 'refs/heads/task-*'
}

# real PATH: PATH with symlinks resolved, as git reports worktree paths.
real() {
	(cd "$1" && pwd -P)
}

# suggest_of ID / waits_of ID / state_of ID: the task's suggest, waits and
# state in status --json (--open too with OPEN=1, as agents poll it).
suggest_of() { git burl status --json ${OPEN:+--open} | jq -r --arg id "$1" '.tasks[] | select(.id == $id) | .suggest'; }
waits_of() { git burl status --json ${OPEN:+--open} | jq -r --arg id "$1" '.tasks[] | select(.id == $id) | .waits // ""'; }
state_of() { git burl status --json ${OPEN:+--open} | jq -r --arg id "$1" '.tasks[] | select(.id == $id) | .state'; }

# follow ID [EXIT]: run exactly what status suggests for ID (from the main
# worktree); it must exit EXIT (default 0) — never 1 or 4, a refusal.
# status and output are set by bats' `run`.
# shellcheck disable=SC2154
follow() {
	local s
	s=$(suggest_of "$1")
	[ -n "$s" ] || { echo "no suggest for $1; waits: $(waits_of "$1")" >&2; return 1; }
	run bash -c "$s"
	[ "$status" -eq "${2:-0}" ] || { echo "suggest for $1 ($s) exited $status, wanted ${2:-0}:" >&2; echo "$output" >&2; return 1; }
}

# waiting ID TEXT: status suggests nothing for ID and says it waits, and
# the command status did not suggest would indeed be refused.
waiting() {
	[ -z "$(suggest_of "$1")" ] || { echo "$1 has suggest $(suggest_of "$1")" >&2; return 1; }
	local w
	w=$(waits_of "$1")
	[[ "$w" == *"$2"* ]] || { echo "$1 waits '$w', expected '$2'" >&2; return 1; }
	run git burl status
	assert_output_contains "$1"
}

# every_suggest_is_sound: every task either has a suggest or a reason it waits.
every_suggest_is_sound() {
	run git burl status --json
	assert_success
	local bad
	bad=$(jq -r '.tasks[] | select(.bucket != "DONE" and .suggest == "" and ((.waits // "") == "")) | .id' <<<"$output")
	[ -z "$bad" ] || { echo "no suggest and no reason for: $bad" >&2; return 1; }
}
