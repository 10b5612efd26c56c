# Helpers for the merge queue tests (approve --all, DESIGN §11). Load after
# helpers and lifecycle.
# shellcheck shell=bash

# queue_setup: a burl repo with no cap on DOING and a build_command that
# counts its runs in $BUILDS (outside the repository) and fails when a
# tracked file says BROKEN.
queue_setup() {
	new_burl_repo
	# The build runs in its gate box (DESIGN §24), which writes only the
	# checkout and sandbox_write: the count lives in a folder of its own
	# there.
	mkdir -p "$BATS_TEST_TMPDIR/builds.d"
	BUILDS="$BATS_TEST_TMPDIR/builds.d/builds"
	: >"$BUILDS"
	printf 'sandbox_write: ["%s"]\n' "$BATS_TEST_TMPDIR/builds.d" >>"$REPO/.burl/.workflow/config.yaml"
	git -C "$REPO/.burl" commit -q -m "config: sandbox_write" -- .workflow/config.yaml
	cat >"$BATS_TEST_TMPDIR/build.sh" <<EOF
#!/bin/sh
echo "\$BURL_TASK" >>"$BUILDS"
if git grep -q BROKEN; then echo "build: a file says BROKEN"; exit 1; fi
echo "build ok"
EOF
	chmod +x "$BATS_TEST_TMPDIR/build.sh"
	set_config max_parallel 0
	set_config build_command "$BATS_TEST_TMPDIR/build.sh"
}

# qa N PRIORITY [CONTENT]: add task N (scope fN.txt) and take it to QA with
# fN.txt holding CONTENT.
qa() {
	git burl add "task $1" --priority "$2" --affects "f$1.txt" >/dev/null || return 1
	submitted "$(printf 'TASK-%03d' "$1")" "f$1.txt" "${3:-work $1}" >/dev/null
}

# builds: how many times build_command ran.
builds() {
	wc -l <"$BUILDS" | tr -d ' '
}

# main_subjects: the subjects of main's commits since the initial one,
# oldest first.
main_subjects() {
	git log --reverse --format=%s main | tail -n +2
}
