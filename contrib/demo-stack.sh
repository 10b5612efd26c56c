#!/usr/bin/env bash
# The README's Stacks section, run for real in a throwaway repository: a
# child task claimed on its parent's submitted head, the parent squashed
# onto main, the child restacked with git rebase --onto. `make demo-stack`
# runs it, and bats/readme_stacks.bats checks that the README shows
# exactly these commands.
set -euo pipefail

demo=$(mktemp -d "${TMPDIR:-/tmp}/burl-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
# shellcheck source=contrib/demo-lib.sh
. "$(dirname "$0")/demo-lib.sh"
demo_home "$demo"
export BURL_ACTOR="agent-1"
DEMO_SED="s|$demo|/tmp/demo|g; s|[0-9a-f]\{10\}|<sha>|g; s|[0-9a-f]\{7\}\b|<sha>|g; s|port [0-9]*|port <n>|g"

git init -q --bare "$demo/origin.git"
git clone -q "$demo/origin.git" "$demo/game" 2>/dev/null
cd "$demo/game"
mkdir -p src
printf 'package game\n\nfunc Jump() int { return 0 }\n' >src/jump.go
git add -A && git commit -q -m "initial commit" && git push -q origin main
git burl init >/dev/null

# shellcheck disable=SC2016 # shown, not expanded
printf '$ $EDITOR .burl/.workflow/config.yaml      # stack: true, merge_strategy: squash\n\n'
sed -i 's/^merge_strategy:.*/merge_strategy: squash/' .burl/.workflow/config.yaml
printf 'stack: true\n' >>.burl/.workflow/config.yaml
run git -C .burl commit -q -m 'config: stacks, squash' .workflow/config.yaml
run git burl add "Add a jump helper" --affects src/jump.go --affects src/helper.go
run git burl add "Use the helper" --affects src/helper.go --affects src/use.go --depends-on TASK-001
run git burl claim TASK-001
cd "$(git burl worktree TASK-001)"
printf 'package game\n\nfunc helper() int { return 1 }\n' >src/helper.go
git add src/helper.go && git commit -q -m "helper, draft"
printf 'package game\n\nfunc Jump() int { return helper() + 2 }\n' >src/jump.go
git commit -q -am "Jump uses the helper"
printf '$ # ...TASK-001 is done in its worktree: it adds src/helper.go in two commits\n\n'
run git burl submit TASK-001
run git burl claim TASK-002
cd "$(git burl worktree TASK-002)"
printf 'package game\n\nfunc Use() int { return Jump() }\n' >src/use.go
git add src/use.go && git rm -q src/helper.go && git commit -q -m "use Jump, drop the helper"
printf '$ # ...TASK-002 starts on TASK-001'"'"'s head: it adds src/use.go and deletes src/helper.go\n\n'
cd "$demo/game"
run git burl submit TASK-002
run git burl status
run git burl approve --all
run git log --oneline main
run git ls-tree --name-only main src/
