#!/bin/sh
# Hook overhead: the same commit with burl's commit-msg hook and with
# --no-verify, on a non-task branch and on a task branch staging a 1,000-line
# change; then a push of that task branch with and without pre-push. Needs
# hyperfine and git-burl on PATH. Prints hyperfine's table, then medians and minimums.
#   contrib/bench/hooks.sh [RUNS]
set -eu
runs=${1:-100}
command -v hyperfine >/dev/null 2>&1 || { echo "hooks.sh: hyperfine is needed" >&2; exit 1; }
command -v git-burl >/dev/null 2>&1 || { echo "hooks.sh: git-burl must be on PATH (make build; PATH=\$PWD/bin:\$PATH)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$tmp/home/.gitconfig"
mkdir -p "$HOME"
git config --global user.name bench
git config --global user.email bench@burl.invalid
git config --global init.defaultBranch main

git init -q --bare "$tmp/origin.git"
git clone -q "$tmp/origin.git" "$tmp/repo" 2>/dev/null
cd "$tmp/repo"
mkdir src
echo 'package src' >src/a.go
git add -A
git commit -q -m init
git push -q origin main
git burl init --hooks >/dev/null
git burl add "bench" --affects-glob 'src/**' >/dev/null
wt=$(git burl claim TASK-001 | tail -n 1)

# A clean 1,000-line change inside the task's scope, staged.
i=0
{
	echo 'package src'
	while [ $i -lt 1000 ]; do echo "var v$i = $i"; i=$((i + 1)); done
} >"$wt/src/big.go"
git -C "$wt" add src/big.go
base=$(git -C "$wt" rev-parse HEAD)
git -C "$wt" commit -q --no-verify -m "big change"
git -C "$wt" reset -q --soft "$base"

hyperfine -N --warmup 5 --runs "$runs" --export-json "$tmp/commit-main.json" \
	-n 'main: commit (hook)' 'git commit -q --allow-empty -m x' \
	-n 'main: commit --no-verify' 'git commit -q --allow-empty --no-verify -m x'
cd "$wt"
hyperfine -N --warmup 5 --runs "$runs" --export-json "$tmp/commit-task.json" \
	--prepare "git reset -q --soft $base" \
	-n 'task: commit 1,000 lines (hook)' 'git commit -q -m x' \
	-n 'task: commit 1,000 lines --no-verify' 'git commit -q --no-verify -m x'
git reset -q --soft "$base"
git commit -q --no-verify -m "big change"
branch=$(git symbolic-ref --short HEAD)
git push -q origin "$branch"
hyperfine -N --warmup 3 --runs "$runs" --export-json "$tmp/push-task.json" \
	--prepare "git push -q origin :$branch" \
	-n 'task: push (hook)' "git push -q origin $branch" \
	-n 'task: push --no-verify' "git push -q --no-verify origin $branch"

echo
echo "median and min (ms); on a busy machine the min is the steadier figure:"
for f in commit-main commit-task push-task; do
	# hyperfine's JSON: "command": "...", then "median" and "min" in seconds.
	sed -n 's/.*"command": "\(.*\)",/\1/p; s/.*"median": \([0-9.e-]*\),/\1/p; s/.*"min": \([0-9.e-]*\),/\1/p' "$tmp/$f.json" |
		paste - - - | awk -F'\t' '{ printf "  %-40s %7.2f %7.2f\n", $1, $2 * 1000, $3 * 1000 }'
done
