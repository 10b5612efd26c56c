#!/usr/bin/env bats
# bash completion: git's own completion hands `git burl ...` to _git_burl,
# which completes verbs, options and the task IDs of the right bucket.

load helpers

GIT_COMPLETION=/usr/share/bash-completion/completions/git

setup() {
	[ -f "$GIT_COMPLETION" ] || skip "git's bash completion is not installed ($GIT_COMPLETION); it comes with the git package"
	OURS="$(dirname "$(command -v git-burl)")/../share/bash-completion/completions/git-burl"
	[ -f "$OURS" ] || { echo "install.sh did not install the bash completion: $OURS"; return 1; }
	new_burl_repo
}

# complete WORD...: what bash offers for the command line WORD... (the last
# word is the one being completed), one candidate per line.
complete_line() {
	bash -c '
		source "$1"
		source "$2"
		shift 2
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		__git_func_wrap __git_main
		printf "%s\n" "${COMPREPLY[@]}"
	' _ "$GIT_COMPLETION" "$OURS" "$@" | sed 's/ $//'
}

# Three tasks: TASK-001 and TASK-002 in QA, TASK-003 in READY.
qa_tasks() {
	for t in one two three; do
		git burl add "$t" --affects-glob "$t/**" >/dev/null
	done
	for id in TASK-001 TASK-002; do
		wt=$(git burl claim "$id" | tail -n 1)
		(cd "$wt" && dir=$(git symbolic-ref --short HEAD | cut -d- -f3) && commit_file "$dir/f.txt" x && git burl submit >/dev/null)
	done
}

@test "git burl cl<TAB> completes claim and clean" {
	run complete_line git burl cl
	assert_success
	[ "$output" = "$(printf 'claim\nclean')" ]
}

@test "git burl approve <TAB> offers the QA tasks only" {
	qa_tasks
	[ "$(bucket_of TASK-001)" = QA ]
	run complete_line git burl approve ""
	assert_success
	[ "$(sort <<<"$output")" = "$(printf 'TASK-001\nTASK-002')" ]
	run complete_line git burl claim ""
	[ "$output" = "TASK-003" ]
	run complete_line git burl show TASK-00
	[ "$(sort <<<"$output")" = "$(printf 'TASK-001\nTASK-002\nTASK-003')" ]
}

@test "git burl approve --a<TAB> offers --all and --accept-landed" {
	run complete_line git burl approve --a
	assert_success
	[ "$(sort <<<"$output")" = "$(printf -- '--accept-landed\n--all')" ]
	run complete_line git burl approve --al
	[ "$output" = "--all" ]
}

@test "task IDs are completed from a task worktree and a subdirectory too" {
	git burl add "one" --affects-glob "one/**" >/dev/null
	git burl add "two" >/dev/null
	wt=$(git burl claim TASK-001 | tail -n 1)
	mkdir -p "$wt/one"
	cd "$wt/one"
	run complete_line git burl submit ""
	[ "$output" = "TASK-001" ]
	run complete_line git burl claim ""
	[ "$output" = "TASK-002" ]
}

@test "options and their values complete per verb" {
	run complete_line git burl add --pri
	[ "$output" = "--priority=" ]
	run complete_line git burl add --priority=h
	[ "$output" = "high" ]
	run complete_line git burl hooks ""
	[ "$output" = "$(printf 'install\nuninstall\nstatus')" ]
	run complete_line git burl init --h
	[ "$(sort <<<"$output")" = "$(printf -- '--help\n--hooks')" ]
}

@test "outside a repository there are no task IDs to offer" {
	cd "$BATS_TEST_TMPDIR"
	run complete_line git burl claim ""
	assert_success
	[ -z "$output" ]
}

@test "git bu<TAB> offers one burl, not a git-burl-* program per verb" {
	run complete_line git bu
	assert_success
	# git's own "bundle" is there too.
	[ "$(grep '^burl' <<<"$output")" = "burl" ] || { echo "$output"; false; }
}

@test "git burl completion bash|zsh|fish prints the scripts install.sh installs" {
	root=$BATS_TEST_DIRNAME/..
	[ "$(git burl completion bash)" = "$(cat "$OURS")" ]
	[ "$(git burl completion zsh)" = "$(cat "$root/contrib/completion/_git-burl")" ]
	[ "$(git burl completion fish)" = "$(cat "$root/contrib/completion/git-burl.fish")" ]
	run git burl completion tcsh
	assert_failure 1
	assert_output_contains "bash, zsh and fish"
	run git burl completion
	assert_failure 1
	# What it prints works: completion from the printed script alone.
	git burl completion bash >"$BATS_TEST_TMPDIR/printed.bash"
	OURS="$BATS_TEST_TMPDIR/printed.bash" run complete_line git burl comp
	[ "$output" = "completion" ]
	OURS="$BATS_TEST_TMPDIR/printed.bash" run complete_line git burl completion ""
	[ "$output" = "$(printf 'bash\nzsh\nfish')" ]
}

@test "git burl scope <TAB> offers READY, DOING, BLOCKED and QA tasks (--grant answers a request wherever it waits), and its options" {
	qa_tasks
	git burl add "four" --affects-glob "four/**" >/dev/null
	git burl claim TASK-004 >/dev/null
	git burl add "five" --affects-glob "five/**" >/dev/null
	git burl block TASK-005 --reason "waiting" >/dev/null
	git burl add "six" --affects-glob "six/**" >/dev/null
	git burl claim TASK-006 >/dev/null
	git burl cancel TASK-006 --reason "not needed" >/dev/null
	run complete_line git burl scope ""
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "TASK-001 TASK-002 TASK-003 TASK-004 TASK-005 " ]
	run complete_line git burl scope TASK-003 --rem
	[ "$output" = "--remove=" ]
}

@test "the verbs that take work from agents complete task IDs from their buckets, and their options" {
	qa_tasks
	git burl add four --affects-glob 'four/**' >/dev/null 2>&1
	git burl block TASK-004 --reason wait >/dev/null
	run complete_line git burl unblock ""
	[ "$output" = "TASK-004" ]
	run complete_line git burl unblock TASK-004 --cl
	[ "$output" = "--claim" ]
	run complete_line git burl hold ""
	[ "$output" = "$(printf 'TASK-003\nTASK-004')" ]
	run complete_line git burl cancel ""
	# In the order of the buckets asked for: READY, DOING, QA, BLOCKED.
	[ "$output" = "$(printf "TASK-003\nTASK-001\nTASK-002\nTASK-004")" ]
	run complete_line git burl edit TASK-003 --remove-dep
	[ "$output" = "--remove-depends-on=" ]
}
