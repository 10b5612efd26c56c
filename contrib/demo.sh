#!/usr/bin/env bash
# The README's five-minute tour, run for real in a throwaway repository:
# every command is printed with its output. `make demo` runs it (and CI
# does too), so the tour in the README cannot silently rot.
set -euo pipefail

demo=$(mktemp -d "${TMPDIR:-/tmp}/burl-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
# shellcheck source=contrib/demo-lib.sh
. "$(dirname "$0")/demo-lib.sh"
demo_home "$demo"
export BURL_ACTOR="agent-1"
DEMO_SED="s|$demo|/tmp/demo|g"

git init -q --bare "$demo/origin.git"
git clone -q "$demo/origin.git" "$demo/game" 2>/dev/null
cd "$demo/game"
mkdir -p src
printf 'package game\n\nfunc Jump() int { return 0 }\n' >src/jump.go
printf 'module game\n\ngo 1.22\n' >go.mod
git add -A && git commit -q -m "initial commit" && git push -q origin main

run git burl init
run git burl add "Implement jump" --priority high --affects src/jump.go --affects-glob 'src/jump/**' --description "Space makes the player jump" --ac "jump() lifts the player"
run git burl status
run git burl claim
wt=$(git burl worktree TASK-001)
# The work happens in the task's worktree, never in the main checkout.
printf '$ cd .worktrees/task-001-implement-jump\n\n'
cd "$wt"
# shellcheck disable=SC2016 # shown, not expanded
printf '$ $EDITOR src/jump.go      # the work itself\n\n'
printf 'package game\n\n// Jump returns the jump height.\nfunc Jump() int { return 3 }\n' >src/jump.go
# Named, not -a: a new file is untracked until added, and -a would leave
# it out (a newcomer's task often creates its file).
run git add src/jump.go
run git commit -q -m "Jump higher"
run git burl submit
printf '$ cd -\n\n'
cd "$demo/game"
run git burl validate TASK-001
run git burl approve TASK-001
run git log --oneline main
run git burl status
run git burl log

# Let burl run your agents: the agent here is a two-line script; in real
# life it is `claude -p @{prompt_file}` or any other command.
run git burl add "Add a run speed" --affects src/run.go
run git burl add "Add a crouch" --affects src/crouch.go
cat >"$demo/agent.sh" <<'SH'
#!/bin/sh
# Reads the prompt burl wrote ($BURL_PROMPT_FILE); writes the one file in scope.
f=$(sed -n 's/^- You may change these files: `\(.*\)`\.$/\1/p' "$BURL_PROMPT_FILE")
printf 'package game\n\n// %s\nfunc %s() int { return 1 }\n' "$BURL_TITLE" "$(basename "$f" .go | sed 's/./\U&/')" >"$f"
# What this run cost, for status, log and the board (a real CLI's JSON output is read from the log).
echo '{"input_tokens": 1200, "output_tokens": 340, "cost_usd": 0.02}' >"$BURL_USAGE_FILE"
SH
chmod +x "$demo/agent.sh"
run cat "$demo/agent.sh"
cat >.burl/.workflow/agents.yaml <<EOF2
auto_approve: true
agents:
  - name: coder
    command: ["$demo/agent.sh"]     # argv, never a shell string
    max_parallel: 2
    timeout: 1m
  - name: claude
    preset: claude-code    # Claude Code's own unattended command line
    tags: [claude]         # only tasks tagged claude
EOF2
run cat .burl/.workflow/agents.yaml
run git -C .burl add .workflow/agents.yaml
run git -C .burl commit -q -m "agents.yaml: one coder"
run git burl watch --print-command claude
# burl runs no command from the workflow branch that you have not trusted
# on this machine: watch would refuse the agent until this.
run git burl trust --yes
run git burl watch --once
run git log --oneline main
run git burl log --action run_end
