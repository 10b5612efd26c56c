#!/bin/sh
# worktree_setup's cost in claim (DESIGN §18): the same claim of a fresh
# worktree in two repositories, one linking a 10,000-file node_modules
# from the main worktree (worktree_setup: link), one without worktree_setup.
# The difference of the medians is what the set-up adds beyond its
# command (there is none here). Needs hyperfine and git-burl on PATH.
#   contrib/bench/setup.sh [RUNS]
set -eu
runs=${1:-30}
command -v hyperfine >/dev/null 2>&1 || { echo "setup.sh: hyperfine is needed" >&2; exit 1; }
command -v git-burl >/dev/null 2>&1 || { echo "setup.sh: git-burl must be on PATH (make build; PATH=\$PWD/bin:\$PATH)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$tmp/home/.gitconfig"
mkdir -p "$HOME"
git config --global user.name bench
git config --global user.email bench@burl.invalid
git config --global init.defaultBranch main

# repo NAME SETUP: a repository with a 10,000-file node_modules (ignored)
# and one READY task, config.yaml ending with SETUP.
repo() {
	git init -q --bare "$tmp/$1.git"
	git clone -q "$tmp/$1.git" "$tmp/$1" 2>/dev/null
	cd "$tmp/$1"
	echo 'node_modules/' >.gitignore
	mkdir -p src && echo 'package src' >src/a.go
	git add -A && git commit -q -m init && git push -q origin main
	i=0
	while [ $i -lt 100 ]; do
		mkdir -p "node_modules/pkg$i"
		j=0
		while [ $j -lt 100 ]; do echo "module.exports = $j" >"node_modules/pkg$i/f$j.js"; j=$((j + 1)); done
		i=$((i + 1))
	done
	git burl init >/dev/null
	printf '%s\n' "$2" >>.burl/.workflow/config.yaml
	git -C .burl commit -q -am "config"
	git burl add "bench" --affects-glob 'src/**' >/dev/null
}
# The prepare step: TASK-001 back in READY with no branch or worktree, so
# every measured claim makes a fresh worktree (and runs worktree_setup).
reset='git burl release TASK-001 >/dev/null 2>&1; git worktree remove --force .worktrees/task-001-bench 2>/dev/null; git branch -q -D task-001-bench 2>/dev/null; true'

repo plain ""
repo linked "worktree_setup:
  link: [node_modules]"
cd "$tmp"
hyperfine -N --warmup 3 --runs "$runs" --export-json "$tmp/setup.json" \
	--prepare "sh -c 'cd $tmp/plain && $reset'" -n 'claim (no worktree_setup)' "git -C $tmp/plain burl claim TASK-001" \
	--prepare "sh -c 'cd $tmp/linked && $reset'" -n 'claim (link a 10,000-file node_modules)' "git -C $tmp/linked burl claim TASK-001"
[ -L "$tmp/linked/.worktrees/task-001-bench/node_modules" ] || { echo "setup.sh: the link was not made" >&2; exit 1; }
echo
jq -r '.results[] | "\(.command): median \(.median * 1000 | floor) ms"' "$tmp/setup.json"
jq -r '"worktree_setup adds \((.results[1].median - .results[0].median) * 1000 | . * 10 | floor / 10) ms (medians)"' "$tmp/setup.json"
