#!/usr/bin/env bats
# Stacks under watch (DESIGN §26): with stack: true a child is claimed as
# soon as its parent is submitted, so a chain's agents work while the
# tasks before them wait in QA; a restack that conflicts goes back to the
# agent with the files and the parent's landed commit in its next prompt.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

# chain_repo: stack: true, squash landing, no auto_approve (the tasks wait
# in QA for the lead), and a chain TASK-001 <- TASK-002 <- TASK-003; the
# agent `chain` does each one's part, recording what it saw in $AGENTS.
chain_repo() {
	watch_repo
	set_config merge_strategy squash
	printf 'stack: true\n' >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: stack" -- .workflow/config.yaml
	git burl add "Parent" --affects added.txt --affects README.md >/dev/null
	git burl add "Child" --affects added.txt --affects child.txt --depends-on TASK-001 >/dev/null
	git burl add "Grandchild" --affects grand.txt --depends-on TASK-002 >/dev/null
	# shellcheck disable=SC2016 # expanded by the agent
	agent chain "ls >\"$AGENTS/\$BURL_TASK-\$BURL_ATTEMPT.files\""'
case $BURL_TASK in
TASK-001) echo "added by the parent" >added.txt; printf "# demo\nparent line\n" >README.md ;;
TASK-002) git rm -q added.txt; echo child >child.txt ;;
TASK-003) echo grand >grand.txt ;;
esac
git add -A && git commit -q -m "$BURL_TASK part"'
	agents_yaml "agents:
  - name: bot
    command: [\"$AGENTS/chain\"]
    max_parallel: 3
    timeout: 30s"
}

@test "stack watch: a chain's children are claimed on their parents' submitted heads while the parents wait in QA; approve --all lands them in order" {
	chain_repo
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_success
	# All three were worked in this one watch, none of them landed.
	for id in TASK-001 TASK-002 TASK-003; do [ "$(bucket_of "$id")" = QA ]; done
	[ "$(field TASK-002 stacked_on)" = TASK-001 ]
	[ "$(field TASK-003 stacked_on)" = TASK-002 ]
	[ "$(field TASK-002 stack_base)" = "$(field TASK-001 submitted_sha)" ]
	[ "$(field TASK-003 stack_base)" = "$(field TASK-002 submitted_sha)" ]
	# Each agent started on the work before it.
	grep -qx added.txt "$AGENTS/TASK-002-1.files"
	# ... and was told so in its prompt.
	grep -q "^## Stacked on TASK-001" "$AGENTS/prompts/TASK-002-1.md"
	grep -q "git rebase --onto" "$AGENTS/prompts/TASK-002-1.md"
	! grep -q "^## Stacked on" "$AGENTS/prompts/TASK-001-1.md"
	grep -qx child.txt "$AGENTS/TASK-003-1.files"
	! grep -qx added.txt "$AGENTS/TASK-003-1.files"
	run git burl approve --all --json
	assert_success
	[ "$(jq -r '.approved | join(",")' <<<"$output")" = TASK-001,TASK-002,TASK-003 ]
	[ "$(git log -3 --format=%s main | paste -sd,)" = "Grandchild (TASK-003),Child (TASK-002),Parent (TASK-001)" ]
	! git cat-file -e main:added.txt 2>/dev/null
	[ "$(git show main:child.txt)" = child ]
	[ "$(git show main:grand.txt)" = grand ]
	[ "$(git show main:README.md)" = "$(printf '# demo\nparent line')" ]
	run git burl verify main~3..main
	assert_success
}

@test "stack watch: a child whose restack conflicts goes back to its agent with the files and the parent's landed commit in its next prompt" {
	chain_repo
	git burl edit TASK-003 --remove-depends-on TASK-002 >/dev/null
	git burl cancel TASK-003 --reason "not in this test" >/dev/null
	git burl scope TASK-002 --affects src/jump.go --reason "the child changes Jump" >/dev/null
	# shellcheck disable=SC2016 # expanded by the agent
	agent chain 'jump() { printf "package src\n\n// existing TODO: not ours\nfunc Jump() { %s }\n" "$1" >src/jump.go; }
case $BURL_TASK-$BURL_ATTEMPT in
TASK-001-*) echo "added by the parent" >added.txt ;;
TASK-002-1) jump "child()" ;;
*)
	# As the prompt says: replay its own commits onto main, resolve.
	set -- $(grep -o "git rebase --onto [0-9a-f]* [0-9a-f]*" "$BURL_PROMPT_FILE" | tail -1)
	git rebase -q --onto "$4" "$5" >/dev/null 2>&1 || { jump "both()"; git add src/jump.go; GIT_EDITOR=true git rebase --continue >/dev/null; } ;;
esac
git add -A && git commit -q -m "$BURL_TASK part" || true'
	run --separate-stderr git burl watch --once --interval 100ms --json
	assert_success
	[ "$(bucket_of TASK-002)" = QA ]
	printf '%s\n' "$(jump_go 'main()')" >src/jump.go
	git commit -q -am "main changes Jump"
	run git burl approve TASK-001
	assert_success
	assert_output_contains "TASK-002 back to READY for bot: restacking it onto main conflicts in src/jump.go"
	[ "$(bucket_of TASK-002)" = READY ]
	landed=$(git rev-parse --short=10 main)
	run --separate-stderr git burl watch --once --interval 100ms --json
	prompt="$AGENTS/prompts/TASK-002-2.md"
	[ -f "$prompt" ]
	grep -q "TASK-001 landed as $landed" "$prompt"
	grep -q -- "- src/jump.go" "$prompt"
	grep -q "git rebase --onto $(git rev-parse main) " "$prompt"
	# The agent resolved it as told, and the child lands on the parent.
	assert_success
	[ "$(bucket_of TASK-002)" = QA ]
	run git burl approve TASK-002
	assert_success
	[ "$(git log -1 --format=%s main)" = "Child (TASK-002)" ]
	[ "$(git show main:src/jump.go)" = "$(jump_go 'both()')" ]
}
