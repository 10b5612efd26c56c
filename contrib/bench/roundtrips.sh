#!/usr/bin/env bash
# Round trips to the remote per transition with workflow_auto_push and
# push_main_on_approve against a local bare origin (DESIGN §28, issue 43):
# a logging `git` first on PATH writes, for every git that burl starts,
# the burl process that started it and the subcommand, and git-burl runs
# directly (not as `git burl`, whose exec-path would hide the wrapper).
# Counted: claim, submit and approve by hand, then one task landed by
# `watch --once` (claim, run_start, submit, run_end, approve), by process.
#
# Prints a markdown table: fetches and pushes per transition, and the
# round trips of the task landed by watch (the watch process's own
# fetches include its rounds' looks for work, one per --interval). With
# --check, exits 1 when a transition costs more than one fetch or one
# push (bats/remote_roundtrips.bats): one clone, so no race to lose.
set -euo pipefail

check=""
[ "${1:-}" != --check ] || check=1

command -v git-burl >/dev/null || { echo "roundtrips: git-burl is not on PATH (make bench)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-roundtrips.XXXXXX")
trap 'rm -rf "$W"' EXIT
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench

# The wrapper logs "<pid of the burl process> <its verb> <git subcommand>":
# the burl binary's name (git-burl-claim, or git-burl with the verb next).
mkdir -p "$W/bin"
cat >"$W/bin/git" <<SH
#!/bin/sh
if [ -n "\${ROUNDTRIPS_LOG:-}" ]; then
	sub= skip=
	for a; do
		if [ -n "\$skip" ]; then skip=; continue; fi
		case \$a in -c | -C) skip=1 ;; -*) ;; *) sub=\$a; break ;; esac
	done
	case \$sub in
	fetch | push)
		verb=\$(tr '\\0' ' ' </proc/\$PPID/cmdline 2>/dev/null | awk '{ n = split(\$1, p, "/"); b = p[n]; sub(/^git-burl-?/, "", b); if (b == "") b = \$2; if (b == "approve" && \$2 == "--all") b = "approve--all"; print b }')
		printf '%s %s %s\n' "\$PPID" "\${verb:-?}" "\$sub" >>"\$ROUNDTRIPS_LOG"
		;;
	esac
fi
exec $(command -v git) "\$@"
SH
chmod +x "$W/bin/git"
export PATH="$W/bin:$PATH"

# counted NAME CMD...: CMD run with its fetches and pushes logged in $W/NAME.log.
counted() {
	local name=$1
	shift
	: >"$W/$name.log"
	ROUNDTRIPS_LOG="$W/$name.log" "$@"
}

# repo DIR: a clone of a bare origin with burl initialised, no build
# command, no DOING cap, workflow_auto_push and push_main_on_approve on,
# and one task, TASK-001, on the origin.
repo() {
	git init -q --bare "$1.git"
	git clone -q "$1.git" "$1" 2>/dev/null
	cd "$1"
	echo x >README.md
	git add -A && git commit -q -m init && git push -q origin main
	git-burl init >/dev/null
	sed -i -e 's/^max_parallel:.*/max_parallel: 0/' -e 's/^build_command:.*/build_command: ""/' \
		-e 's/^workflow_auto_push:.*/workflow_auto_push: true/' -e 's/^push_main_on_approve:.*/push_main_on_approve: true/' \
		.burl/.workflow/config.yaml
	git -C .burl commit -q -am config
	git-burl add "Task 1" --affects f-TASK-001.txt >/dev/null
	git -C .burl push -q origin burl
}

repo "$W/hand"
wt=$(counted claim git-burl claim TASK-001 | tail -n 1)
(cd "$wt" && echo 1 >f-TASK-001.txt && git add -A && git commit -q -m "Task 1")
counted submit git-burl submit TASK-001 >/dev/null
counted approve git-burl approve TASK-001 >/dev/null

repo "$W/watch"
cat >"$W/agent.sh" <<'SH'
#!/bin/sh
echo "$BURL_TASK" >"f-$BURL_TASK.txt"
SH
chmod +x "$W/agent.sh"
printf 'sandbox: none\nauto_approve: true\nagents:\n  - name: a\n    command: ["%s"]\n    max_parallel: 1\n    timeout: 1m\n' \
	"$W/agent.sh" >.burl/.workflow/agents.yaml
git -C .burl add -A && git -C .burl commit -q -m agents
git-burl trust --yes >/dev/null
counted watch git-burl watch --once --interval "${ROUNDTRIPS_INTERVAL:-200ms}" >/dev/null 2>&1
git fetch -q origin
git ls-tree -r --name-only origin/burl .workflow/DONE | grep TASK-001 >/dev/null || { echo "roundtrips: watch did not land TASK-001 on origin" >&2; exit 2; }

# count LOG VERB KIND: how many KIND (fetch, push) processes of VERB LOG holds.
count() { awk -v v="$2" -v k="$3" '$2 == v && $3 == k' "$1" | wc -l; }

over=0
printf '| transition (auto-push, local bare origin) | fetch | push | §28 |\n|---|---|---|---|\n'
row() {
	local label=$1 f=$2 p=$3 mark="≤ 1 + ≤ 1 ✅"
	if [ "$f" -gt 1 ] || [ "$p" -gt 1 ]; then
		mark="**over**"
		over=1
	fi
	printf '| %s | %d | %d | %s |\n' "$label" "$f" "$p" "$mark"
}
for v in claim submit approve; do
	row "$v" "$(count "$W/$v.log" "$v" fetch)" "$(count "$W/$v.log" "$v" push)"
done
# Under watch each verb's process is one transition; the watch process's
# own transitions are run_start and run_end, one push each.
for v in claim submit approve--all; do
	row "$v under watch --once" "$(count "$W/watch.log" "$v" fetch)" "$(count "$W/watch.log" "$v" push)"
done
wf=$(count "$W/watch.log" watch fetch)
wp=$(count "$W/watch.log" watch push)
tf=$(awk '$3 == "fetch"' "$W/watch.log" | wc -l)
tp=$(awk '$3 == "push"' "$W/watch.log" | wc -l)
printf '| watch process (run_start, run_end, and its rounds) | %d | %d | %d push(es) for 2 transitions |\n' "$wf" "$wp" "$wp"
[ "$wp" -le 2 ] || over=1
printf '\none task landed by watch --once: %d fetch + %d push = %d round trips (5 transitions; main e9f7f63: 16.5 + 5 = 21.5)\n' "$tf" "$tp" $((tf + tp))
[ -z "$check" ] || [ "$over" = 0 ]
