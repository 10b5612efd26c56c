#!/bin/sh
# A test double for gh and glab (pkg/forge's tests copy it in as both).
# It appends what it was given to $FAKECLI_LOG: its name, every argument
# on a line of its own, GH_HOST and GITLAB_HOST, then its stdin, then a
# separator. It answers from $FAKECLI_ANSWERS/KEY.out (stdout), KEY.err
# (stderr) and KEY.rc (exit status), where KEY is the subcommand ("pr-list",
# "mr-view", "api"); KEY.N.* answers its Nth call, before KEY.* does.
set -eu
log=${FAKECLI_LOG:?}
answers=${FAKECLI_ANSWERS:?}
if [ "${1:-}" = api ]; then
	key=api
else
	key="${1:-}-${2:-}"
fi
n=1
if [ -f "$answers/$key.count" ]; then
	n=$(($(cat "$answers/$key.count") + 1))
fi
printf '%s\n' "$n" >"$answers/$key.count"
{
	printf 'tool %s\n' "$(basename "$0")"
	for a in "$@"; do
		printf 'arg %s\n' "$a"
	done
	printf 'env GH_HOST=%s\n' "${GH_HOST:-}"
	printf 'env GITLAB_HOST=%s\n' "${GITLAB_HOST:-}"
	printf 'stdin\n'
	cat
	printf '\n--end--\n'
} >>"$log"
pick() {
	if [ -f "$answers/$key.$n.$1" ]; then
		printf '%s\n' "$answers/$key.$n.$1"
	elif [ -f "$answers/$key.$1" ]; then
		printf '%s\n' "$answers/$key.$1"
	fi
}
if [ -n "$(pick sleep)" ]; then
	exec sleep "$(cat "$(pick sleep)")"
fi
if [ -n "$(pick out)" ]; then
	cat "$(pick out)"
fi
if [ -n "$(pick err)" ]; then
	cat "$(pick err)" >&2
fi
rc=0
if [ -n "$(pick rc)" ]; then
	rc=$(cat "$(pick rc)")
fi
exit "$rc"
