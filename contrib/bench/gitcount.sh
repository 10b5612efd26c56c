#!/usr/bin/env bash
# Git processes per transition (DESIGN §28, issue 43): a logging `git`
# first on PATH writes the subcommand of every git that burl starts (its
# first word that is no option, a `-c name=value` or `-C dir` skipped), and
# git-burl runs directly, not as `git burl`, so that git's exec-path (which
# git puts first on PATH for its subcommands) does not hide the wrapper.
# Counted, in a clone of a bare origin with no build command and auto-push
# off: claim, submit and approve by hand, and one task landed by
# `watch --once` (claim, run, intake, submit, approve, leases) with the
# sandbox on (bwrap, where it works here).
#
# Prints a markdown table: each count, its ceiling, and §28's goal where
# the ceiling is not there yet (a ratchet: the ceiling only ever comes
# down), then the most frequent subcommands. With --check, exits 1 when a
# count is above its ceiling (bats/git_count.bats).
set -euo pipefail

# The ceilings: §28's numbers once reached, until then the count reached.
# Lower one as soon as a change brings its count down; never raise one.
# watch polls every --interval while a run goes on (1s here: at 50ms the
# count grew with the machine's load, 87-103 under a load of 30).
declare -A CEIL=([claim]=6 [submit]=6 [approve]=12 [watch]=30)
declare -A GOAL=([claim]=6 [submit]=6 [approve]=12 [watch]=30)

check=""
[ "${1:-}" != --check ] || check=1

command -v git-burl >/dev/null || { echo "gitcount: git-burl is not on PATH (make bench)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-gitcount.XXXXXX")
trap 'rm -rf "$W"' EXIT
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench

mkdir -p "$W/bin"
cat >"$W/bin/git" <<SH
#!/bin/sh
if [ -n "\${GITCOUNT_LOG:-}" ]; then
	sub= skip=
	for a; do
		if [ -n "\$skip" ]; then skip=; continue; fi
		case \$a in -c | -C) skip=1 ;; -*) ;; *) sub=\$a; break ;; esac
	done
	printf '%s\n' "\$sub" >>"\$GITCOUNT_LOG"
fi
exec $(command -v git) "\$@"
SH
chmod +x "$W/bin/git"
export PATH="$W/bin:$PATH"

# counted NAME CMD...: CMD run with every git it starts logged in $W/NAME.log.
counted() {
	local name=$1
	shift
	: >"$W/$name.log"
	GITCOUNT_LOG="$W/$name.log" "$@"
}

# repo DIR: a clone of a bare origin with burl initialised, no build
# command, no DOING cap, and one task, TASK-001.
repo() {
	git init -q --bare "$1.git"
	git clone -q "$1.git" "$1" 2>/dev/null
	cd "$1"
	echo x >README.md
	git add -A && git commit -q -m init && git push -q origin main
	git-burl init >/dev/null
	sed -i 's/^max_parallel:.*/max_parallel: 0/; s/^build_command:.*/build_command: ""/' .burl/.workflow/config.yaml
	git -C .burl commit -q -am config
	git-burl add "Task 1" --affects f-TASK-001.txt >/dev/null
}

repo "$W/hand"
wt=$(counted claim git-burl claim TASK-001 | tail -n 1)
(cd "$wt" && echo 1 >f-TASK-001.txt && git add -A && git commit -q -m "Task 1")
counted submit git-burl submit TASK-001 >/dev/null
counted approve git-burl approve TASK-001 >/dev/null

sandbox=none
if command -v bwrap >/dev/null && bwrap --dev-bind / / --ro-bind / / true 2>/dev/null; then
	sandbox=bwrap
fi
repo "$W/watch"
cat >"$W/agent.sh" <<'SH'
#!/bin/sh
echo "$BURL_TASK" >"f-$BURL_TASK.txt"
SH
chmod +x "$W/agent.sh"
printf 'sandbox: %s\nauto_approve: true\nagents:\n  - name: a\n    command: ["%s"]\n    max_parallel: 1\n    timeout: 1m\n' \
	"$sandbox" "$W/agent.sh" >.burl/.workflow/agents.yaml
git -C .burl add -A && git -C .burl commit -q -m agents
git-burl trust --yes >/dev/null
counted watch git-burl watch --once --interval 1s >/dev/null 2>&1
[ -n "$(ls .burl/.workflow/DONE/*/TASK-001-* 2>/dev/null)" ] || { echo "gitcount: watch did not land TASK-001" >&2; exit 2; }

over=0
printf '| transition | git processes | ceiling | §28 goal |\n|---|---|---|---|\n'
for v in claim submit approve watch; do
	n=$(wc -l <"$W/$v.log")
	[ "$n" -gt 0 ] || { echo "gitcount: no git of $v went through the logging git" >&2; exit 2; }
	label=$v
	[ "$v" != watch ] || label="one task by watch --once, sandbox $sandbox"
	mark=""
	[ "${CEIL[$v]}" -le "${GOAL[$v]}" ] || mark=" (ratchet)"
	[ "$n" -le "${CEIL[$v]}" ] || { mark="$mark **over**"; over=1; }
	printf '| %s | %d | ≤ %d%s | ≤ %d |\n' "$label" "$n" "${CEIL[$v]}" "$mark" "${GOAL[$v]}"
done
for v in claim submit approve watch; do
	printf '\n%s: %s\n' "$v" "$(sort "$W/$v.log" | uniq -c | sort -rn | awk '{ printf "%s%s %d", sep, $2, $1; sep = ", " }')"
done
[ -z "$check" ] || [ "$over" = 0 ]
