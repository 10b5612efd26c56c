# Helpers for the landing-record tests (git burl verify, DESIGN §22). Load
# after helpers and lifecycle.
# shellcheck shell=bash

# verified_clone DIR: a fresh clone of $ORIGIN (or of URL, $2) with the
# landing records fetched, and the network gone: origin is renamed, so its
# remote-tracking branches (the workflow branch among them) stay and no
# fetch can reach anything. The working directory is DIR.
verified_clone() {
	git clone -q "${2:-$ORIGIN}" "$1" 2>/dev/null || return 1
	cd "$1" || return 1
	git fetch -q origin refs/notes/burl:refs/notes/burl || return 1
	git remote rename origin gone
	git config remote.gone.url /nonexistent
}

# landed N: task N (scope fN.txt, two commits) taken through claim, submit
# and approve by hand.
landed() {
	local id wt
	id=$(printf 'TASK-%03d' "$1")
	git burl add "task $1" --affects "f$1.txt" >/dev/null || return 1
	wt=$(claim_wt "$id") || return 1
	(cd "$wt" && commit_file "f$1.txt" "work $1" && commit_file "f$1.txt" "work $1, done") || return 1
	git burl submit "$id" >/dev/null || return 1
	git burl approve "$id" >/dev/null
}

# note_of REV: the landing record on REV, in the clone at hand.
note_of() {
	git notes --ref=burl show "$1"
}

# set_note REV TEXT: replace REV's note by hand, as anyone with push
# access could.
set_note() {
	printf '%s\n' "$2" | git notes --ref=burl add -f -F - "$1" 2>/dev/null
}

# killed_approve ID FILE TITLE POINT: a task ID (scope FILE) submitted, its
# approve killed at crash point POINT (approve:merge, approve:log), and the
# locks the killed process held cleared by hand, as its user would.
killed_approve() {
	git burl add "$3" --affects "$2" >/dev/null || return 1
	submitted "$1" "$2" "work on $2" >/dev/null || return 1
	if env BURL_CRASH_AFTER="$4" git burl approve "$1" >/dev/null 2>&1; then
		echo "the approve of $1 was not killed at $4" >&2
		return 1
	fi
	local l
	for l in "$1" main workflow; do
		git burl lock clear "$l" --force >/dev/null 2>&1 || true
	done
}
