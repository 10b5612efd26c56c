# Helpers for the foundation suites (init, add, status, show, worktree, log,
# the dispatcher). Load after helpers.bash.
# shellcheck shell=bash

# The workflow directory, relative to $REPO (used by the .bats files).
# shellcheck disable=SC2034
WF=.burl/.workflow

# burl_head: the commit branch burl points at in $REPO.
burl_head() {
	git -C "$REPO" rev-parse -q --verify refs/heads/burl
}

# count_commits: how many commits branch burl has.
count_commits() {
	git -C "$REPO" rev-list --count refs/heads/burl
}

# digest DIR: one hash over every file under DIR (paths and contents,
# .git excluded), to show that a command changed nothing on disk.
digest() {
	(cd "$1" && find . -name .git -prune -o -type f -print | LC_ALL=C sort | while IFS= read -r f; do
		printf '%s\n' "$f"
		cat "$f"
	done) | git hash-object --stdin
}

# frontmatter FILE: the lines between the opening and closing ---.
frontmatter() {
	awk 'NR == 1 { next } /^---$/ { exit } { print }' "$1"
}

# have_python: python3 is here to check JSON (CI images may lack it).
have_python() {
	command -v python3 >/dev/null 2>&1
}

# json_check FILE PYTHON-EXPR...: each expression, evaluated with the JSON
# document of FILE bound to d, must be true. Fails (printing the document)
# when FILE is not exactly one JSON document or an expression is false.
json_check() {
	local file=$1
	shift
	python3 - "$file" "$@" <<-'EOF'
		import json, sys
		text = open(sys.argv[1]).read()
		try:
		    d = json.loads(text)
		except ValueError as e:
		    sys.exit("not one JSON document (%s):\n%s" % (e, text))
		for expr in sys.argv[2:]:
		    if not eval(expr, {"d": d}):
		        sys.exit("false: %s\ndocument: %s" % (expr, json.dumps(d, indent=1)))
	EOF
}

# add_task TITLE [FLAGS...]: git burl add that must succeed, quietly.
add_task() {
	local out
	if ! out=$(git burl add "$@" 2>&1); then
		echo "git burl add $* failed:" >&2
		echo "$out" >&2
		return 1
	fi
}

# wait_for_line FILE PATTERN: poll (up to ~10s) until FILE has a line
# matching the extended regex PATTERN.
wait_for_line() {
	local _
	for _ in $(seq 1 100); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out waiting for /$2/ in $1; it has:" >&2
	cat "$1" >&2
	return 1
}
