#!/usr/bin/env bats
# Past BURL_SPARSE_DONE tasks done before this month (issue 13), the
# workflow worktree gets a sparse index: each old DONE month is one index
# entry, so that a transition no longer reads an index of every task ever
# done; the old months' files stay on disk for ls and every reader. The
# cone follows the month; a pull writes what it changed outside the cone;
# a kill while the cone moves loses nothing; doctor finds and repairs old
# months deleted from disk behind burl's back; names from the branch that
# git would not check out are never written (the branch is untrusted).

load helpers
load lifecycle

# old_done N: N tasks done in January to March 2025 (a higher ID later),
# in a flat DONE/ as an earlier burl left them (init moves them into their
# months).
old_done() {
	local wf=.burl/.workflow id ts
	for i in $(seq "$1"); do
		id=$(printf 'TASK-%03d' "$i")
		ts=$(printf '2025-%02d-%02dT10:00:00Z' $(((i - 1) * 3 / $1 + 1)) $((i % 28 + 1)))
		printf -- '---\nid: %s\ntitle: Old %d\npriority: medium\ncreated: %s\ncompleted_at: %s\naffects:\n  - src/o%d.go\n---\n\n## Objective\nOld %d.\n' \
			"$id" "$i" "$ts" "$ts" "$i" "$i" >"$wf/DONE/$id-old-$i.md"
	done
	git -C .burl add -A .workflow
	git -C .burl commit -q -m "an old workflow"
}

cone_file() { git -C "${1:-.burl}" rev-parse --path-format=absolute --git-path info/sparse-checkout; }

# on_disk: the number of task files in DONE's month folders.
on_disk() { find "${1:-.burl}/.workflow/DONE" -mindepth 2 -name 'TASK-*.md' | wc -l; }

# cycle ID FILE: add → claim → commit → submit → approve.
cycle() {
	git burl add "New $1" --affects "$2" >/dev/null 2>&1
	submitted "$1" "$2" "work $1" >/dev/null
	git burl approve "$1" >/dev/null 2>&1
}

@test "init makes the workflow worktree sparse past BURL_SPARSE_DONE old tasks; old months stay on disk; a full cycle and every reader see every task" {
	new_burl_repo
	old_done 30
	run git burl init
	assert_success
	# Under the threshold (5,000 by default) nothing changes.
	[ ! -e "$(cone_file)" ]
	head=$(git rev-parse burl)
	run env BURL_SPARSE_DONE=10 git burl init
	assert_success
	[ "$(git rev-parse burl)" = "$head" ]
	[ "$(git -C .burl config --worktree core.sparseCheckout)" = true ]
	# Each old month is one entry of the index, and its files are on disk.
	run git -C .burl ls-files --sparse
	for m in 01 02 03; do
		grep -qx ".workflow/DONE/2025-$m/" <<<"$output"
	done
	! grep -q '^\.workflow/DONE/2025-.*/TASK-' <<<"$output"
	grep -qx '.workflow/READY/.gitkeep' <<<"$output"
	[ "$(on_disk)" = 30 ]
	[ -z "$(git -C .burl status --porcelain)" ]
	# A cycle: the new task lands in this month's folder, in the cone.
	month=$(date -u +%Y-%m)
	cycle TASK-031 src/n.txt
	[ "$(bucket_of TASK-031)" = DONE ]
	[ -f .burl/.workflow/DONE/"$month"/TASK-031-new-task-031.md ]
	run git -C .burl ls-files --sparse
	grep -qx ".workflow/DONE/$month/TASK-031-new-task-031.md" <<<"$output"
	grep -qx ".workflow/DONE/2025-02/" <<<"$output"
	[ "$(on_disk)" = 31 ]
	[ -z "$(git -C .burl status --porcelain)" ]
	run git -C .burl show --name-only --format= HEAD
	grep -qx ".workflow/DONE/$month/TASK-031-new-task-031.md" <<<"$output"
	# The commit is burl's: no hook of the repository ran, the message is whole.
	git -C .burl log -1 --format=%B | grep -q '^Burl-Actor: tester@bats$'
	# Readers.
	run git burl status
	assert_output_contains "DONE 31"
	[ "$(git burl status --json | jq '[.tasks[] | select(.bucket == "DONE")] | length')" = 31 ]
	run git burl show TASK-007 --json
	assert_success
	[ "$(jq -r .task.bucket <<<"$output")" = DONE ]
	run git burl doctor
	assert_success
	git burl add "Needs an old one" --depends-on TASK-002 --affects src/d.txt >/dev/null 2>&1
	run git burl claim TASK-032
	assert_success
	# A second init changes nothing.
	cone=$(cat "$(cone_file)")
	head=$(git rev-parse burl)
	run env BURL_SPARSE_DONE=10 git burl init
	assert_success
	[ "$(git rev-parse burl)" = "$head" ]
	[ "$(cat "$(cone_file)")" = "$cone" ]
	[ "$(on_disk)" = 31 ]
}

@test "the first approve of a month moves the cone to it; the month before becomes one entry and stays on disk" {
	new_burl_repo
	old_done 30
	month=$(date -u +%Y-%m)
	BURL_SPARSE_DONE=10 git burl init >/dev/null
	cycle TASK-031 src/n.txt
	# As on the last day of March 2025: the cone holds 2025-03, this month
	# is one entry. (Applying a cone deletes the folders outside it: they
	# wait aside meanwhile, as burl's own cone changes do.)
	aside="$BATS_TEST_TMPDIR/aside"
	mkdir "$aside"
	mv .burl/.workflow/DONE/20*-* "$aside"/
	sed -i "s#^/.workflow/DONE/$month/\$#/.workflow/DONE/2025-03/#" "$(cone_file)"
	git -C .burl sparse-checkout reapply
	rm -rf "$aside/2025-03"
	mv "$aside"/* .burl/.workflow/DONE/
	git -C .burl ls-files --sparse | grep -qx ".workflow/DONE/$month/"
	[ "$(on_disk)" = 31 ]
	cycle TASK-032 src/m.txt
	grep -qx "/.workflow/DONE/$month/" "$(cone_file)"
	! grep -q '2025-03' "$(cone_file)"
	run git -C .burl ls-files --sparse
	grep -qx ".workflow/DONE/2025-03/" <<<"$output"
	grep -qx ".workflow/DONE/$month/TASK-032-new-task-032.md" <<<"$output"
	[ "$(on_disk)" = 32 ]
	[ "$(find .burl/.workflow/DONE/2025-03 -name 'TASK-*' | wc -l)" = 10 ]
	[ -z "$(git -C .burl status --porcelain)" ]
	[ ! -e "$(git -C .burl rev-parse --path-format=absolute --git-dir)/burl-sparse-stash" ]
	run git burl doctor
	assert_success
}

@test "a pull that changes old months outside the cone writes the change to disk" {
	new_burl_repo
	old_done 30
	BURL_SPARSE_DONE=10 git burl init >/dev/null
	git push -q origin burl
	# Another machine, without burl: a plain clone of the workflow branch
	# edits one old task, removes another and adds one to an old month.
	C="$BATS_TEST_TMPDIR/plain"
	git clone -q -b burl "$ORIGIN" "$C" 2>/dev/null
	sed -i 's/^Old 12\.$/Old 12, amended./' "$C"/.workflow/DONE/2025-02/TASK-012-old-12.md
	git -C "$C" rm -q .workflow/DONE/2025-03/TASK-025-old-25.md
	cp "$C"/.workflow/DONE/2025-01/TASK-003-old-3.md "$C"/.workflow/DONE/2025-01/TASK-040-old-40.md
	sed -i 's/TASK-003/TASK-040/' "$C"/.workflow/DONE/2025-01/TASK-040-old-40.md
	git -C "$C" add -A
	git -C "$C" commit -q -m "another machine"
	git -C "$C" push -q origin burl
	run git burl sync
	assert_success
	grep -q 'Old 12, amended.' .burl/.workflow/DONE/2025-02/TASK-012-old-12.md
	[ ! -e .burl/.workflow/DONE/2025-03/TASK-025-old-25.md ]
	grep -q '^id: TASK-040$' .burl/.workflow/DONE/2025-01/TASK-040-old-40.md
	[ "$(on_disk)" = 30 ]
	[ -z "$(git -C .burl status --porcelain)" ]
	git -C .burl ls-files --sparse | grep -qx ".workflow/DONE/2025-01/"
	run git burl show TASK-040 --json
	assert_success
	run git burl doctor
	assert_success
}

@test "a kill while the cone is applied leaves the old months aside; the next command puts them back" {
	new_burl_repo
	old_done 30
	git burl init >/dev/null
	run env BURL_SPARSE_DONE=10 BURL_CRASH_AFTER=sparse:stash git burl init
	[ "$status" -eq 137 ]
	[ "$(on_disk)" = 0 ]
	# What a user does without doctor: clear the locks the kill left.
	rm .git/burl-init.lock
	for n in $(git burl lock list --json | jq -r '.locks[] | select(.dead) | .name' | sort -r); do
		git burl lock clear "$n" --force >/dev/null
	done
	run git burl add "After the kill" --affects src/k.txt
	assert_success
	[ "$(on_disk)" = 30 ]
	[ ! -e "$(git -C .burl rev-parse --path-format=absolute --git-dir)/burl-sparse-stash" ]
	[ -z "$(git -C .burl status --porcelain)" ]
	run env BURL_SPARSE_DONE=10 git burl init
	assert_success
	git -C .burl ls-files --sparse | grep -qx ".workflow/DONE/2025-01/"
	[ "$(on_disk)" = 30 ]
	run git burl doctor
	assert_success
}

@test "doctor finds old months a hand-run git sparse-checkout deleted from disk, and repair writes them back" {
	new_burl_repo
	old_done 30
	BURL_SPARSE_DONE=10 git burl init >/dev/null
	git -C .burl sparse-checkout reapply
	[ "$(on_disk)" = 0 ]
	run git burl doctor --json
	[ "$status" -eq 2 ]
	[ "$(jq -r '.findings[0].kind' <<<"$output")" = missing_on_disk ]
	jq -e '.findings[0].message | test("^30 committed file")' <<<"$output" >/dev/null
	run git burl doctor --repair --force
	assert_success
	[ "$(on_disk)" = 30 ]
	run git burl doctor
	assert_success
	[ -z "$(git -C .burl status --porcelain)" ]
}

@test "a sparse workflow whose auto-push loses a race to a change of an old month redoes its transition and writes that change to disk" {
	new_burl_repo
	old_done 30
	BURL_SPARSE_DONE=10 git burl init >/dev/null
	set_config workflow_auto_push true
	git -C .burl push -q origin burl
	# Between our fetch and our push, "another machine" amends an old task
	# on origin, outside our cone, so our push fails as a lost race does.
	cat >"$ORIGIN/hooks/pre-receive" <<'HOOK'
#!/bin/sh
if [ ! -e "$GIT_DIR/raced-once" ]; then
	touch "$GIT_DIR/raced-once"
	unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
	export GIT_INDEX_FILE="$GIT_DIR/race-index"
	p=.workflow/DONE/2025-02/TASK-012-old-12.md
	git read-tree refs/heads/burl
	b=$(git cat-file blob "refs/heads/burl:$p" | sed 's/^Old 12\.$/Old 12, amended elsewhere./' | git hash-object -w --stdin)
	git update-index --cacheinfo "100644,$b,$p"
	c=$(git commit-tree "$(git write-tree)" -p refs/heads/burl -m "burl: another machine")
	git update-ref refs/heads/burl "$c"
fi
HOOK
	chmod +x "$ORIGIN/hooks/pre-receive"
	run git burl add "Raced" --affects src/r.txt
	assert_success
	[ -e "$ORIGIN/raced-once" ]
	[ "$(git --git-dir="$ORIGIN" log --format=%s burl | grep -c '^burl: add TASK-031')" -eq 1 ]
	git --git-dir="$ORIGIN" log --format=%s burl | grep -qx "burl: another machine"
	[ "$(git rev-parse burl)" = "$(git --git-dir="$ORIGIN" rev-parse burl)" ]
	grep -q 'Old 12, amended elsewhere.' .burl/.workflow/DONE/2025-02/TASK-012-old-12.md
	[ "$(on_disk)" = 30 ]
	[ -z "$(git -C .burl status --porcelain)" ]
	git -C .burl ls-files --sparse | grep -qx ".workflow/DONE/2025-02/"
	[ "$(bucket_of TASK-031)" = READY ]
	run git burl doctor
	assert_success
}

@test "an old month edited by hand: doctor's hints carry --sparse; after sparse-checkout disable and a commit, init makes the worktree sparse again" {
	new_burl_repo
	old_done 30
	BURL_SPARSE_DONE=10 git burl init >/dev/null
	# A copy of an old task in READY: doctor's fix must work as printed.
	cp .burl/.workflow/DONE/2025-01/TASK-005-old-5.md .burl/.workflow/READY/
	git -C .burl add .workflow/READY
	git -C .burl commit -q -m "a duplicate by hand"
	run git burl doctor --json
	[ "$status" -eq 2 ]
	fix=$(jq -r '.findings[] | select(.kind == "duplicate_task") | .fix' <<<"$output")
	[[ "$fix" == *"git -C .burl rm --sparse FILE"* ]]
	git -C .burl rm -q --sparse .workflow/DONE/2025-01/TASK-005-old-5.md
	git -C .burl commit -q -m "keep the READY copy"
	# An edit of an old month's file: git does not see it while sparse.
	git -C .burl sparse-checkout disable 2>/dev/null
	echo "A note." >>.burl/.workflow/DONE/2025-02/TASK-012-old-12.md
	git -C .burl commit -q -am "a note on an old task"
	git -C .burl show --name-only --format= HEAD | grep -qx .workflow/DONE/2025-02/TASK-012-old-12.md
	BURL_SPARSE_DONE=10 git burl init >/dev/null
	[ "$(git -C .burl config --worktree core.sparseCheckout)" = true ]
	git -C .burl ls-files --sparse | grep -qx ".workflow/DONE/2025-02/"
	grep -q '^A note\.$' .burl/.workflow/DONE/2025-02/TASK-012-old-12.md
	[ "$(on_disk)" = 29 ]
	[ -z "$(git -C .burl status --porcelain)" ]
	cycle TASK-031 src/n.txt
	[ "$(bucket_of TASK-031)" = DONE ]
	[ "$(on_disk)" = 30 ]
}

# hostile_push ENTRY...: a commit on origin's workflow branch, made with
# plumbing (git's porcelain refuses these names), whose old month 2025-01
# (outside the cone) gains the mktree entries ENTRY ("MODE TYPE ID<TAB>NAME";
# $ESCAPE is a tree whose 2025-01/../../../../../escaped.txt is the
# main worktree's escaped.txt) and TASK-040-new.md, an honest copy of
# TASK-003.
hostile_push() {
	local C="$BATS_TEST_TMPDIR/plain.git" blob honest month done_t wf root c
	rm -rf "$C"
	git clone -q --bare "$ORIGIN" "$C"
	honest=$(git -C "$C" rev-parse burl:.workflow/DONE/2025-01/TASK-003-old-3.md)
	month=$(git -C "$C" ls-tree -z burl:.workflow/DONE/2025-01 |
		{ cat; printf '%s\0' "$@" "100644 blob $honest	TASK-040-new.md"; } | git -C "$C" mktree -z)
	# swap TREE NAME SUB: TREE with its entry NAME replaced by the tree SUB.
	swap() { git -C "$C" ls-tree "$1" | awk -F'\t' -v n="$2" -v s="$3" '$2 == n { print "040000 tree " s "\t" n; next } { print }' | git -C "$C" mktree; }
	done_t=$(swap burl:.workflow/DONE 2025-01 "$month")
	wf=$(swap burl:.workflow DONE "$done_t")
	root=$(swap burl .workflow "$wf")
	c=$(git -C "$C" commit-tree "$root" -p burl -m "hostile names")
	git -C "$C" update-ref refs/heads/burl "$c"
	git -C "$C" push -q origin burl
}

# hostile_objects: $BLOB ("escaped") and $ESCAPE in origin's objects.
hostile_objects() {
	local t
	BLOB=$(echo "escaped" | git --git-dir="$ORIGIN" hash-object -w --stdin)
	t=$(printf '100644 blob %s\tescaped.txt\n' "$BLOB" | git --git-dir="$ORIGIN" mktree)
	for _ in 1 2 3 4; do t=$(printf '040000 tree %s\t..\n' "$t" | git --git-dir="$ORIGIN" mktree); done
	ESCAPE=$t
}

@test "a pull writes an old month's new file outside the cone but never one whose name holds a newline" {
	new_burl_repo
	old_done 30
	BURL_SPARSE_DONE=10 git burl init >/dev/null
	git push -q origin burl
	hostile_objects
	hostile_push "100644 blob $BLOB	TASK-041-a
b.md"
	run git burl sync
	assert_success
	assert_output_contains "not writing"
	assert_output_contains "control character"
	grep -q '^id: TASK-003$' .burl/.workflow/DONE/2025-01/TASK-040-new.md
	[ -z "$(find .burl/.workflow/DONE -name 'TASK-041*')" ]
	[ ! -e .burl/.workflow/DONE/2025-01/b.md ]
}

@test "a pull of '..' or '.git' in an old month outside the cone writes nothing outside the workflow worktree and says which path" {
	for entry in ..:ESCAPE .git:ESCAPE; do
		new_burl_repo
		old_done 30
		BURL_SPARSE_DONE=10 git burl init >/dev/null
		git push -q origin burl
		hostile_objects
		hostile_push "040000 tree $ESCAPE	${entry%%:*}"
		run git burl sync
		[ ! -e "$REPO/escaped.txt" ]
		[ -z "$(find "$REPO" -name escaped.txt)" ]
		[ ! -e .burl/.workflow/DONE/2025-01/.git ]
		if [ "$status" -ne 0 ]; then
			# The fetch verifies objects (transfer.fsckObjects): such a
			# tree is refused before anything moves; past it, the write.
			[[ "$output" == *"hasDot"* ]] || assert_output_contains "invalid path '.workflow/DONE/2025-01/${entry%%:*}/"
			[ "$(git rev-parse burl)" != "$(git ls-remote origin refs/heads/burl | cut -f1)" ]
		else
			assert_output_contains "not writing"
		fi
		cd / && rm -rf "$BATS_TEST_TMPDIR/repo" "$BATS_TEST_TMPDIR/origin.git"
	done
}

@test "a sparse workflow worktree takes a proposal: PROPOSED is in the cone before its first task, which is checked out and committed" {
	new_burl_repo
	old_done 30
	run env BURL_SPARSE_DONE=10 git burl init
	assert_success
	grep -qx '/.workflow/PROPOSED/' "$(cone_file)"
	run git burl add "A proposal" --propose --affects src/p.txt
	assert_success
	[ "$(bucket_of TASK-031)" = PROPOSED ]
	run git -C .burl ls-files --sparse
	grep -qx '.workflow/PROPOSED/TASK-031-a-proposal.md' <<<"$output"
	[ -z "$(git -C .burl status --porcelain)" ]
	git burl accept TASK-031 >/dev/null
	[ "$(bucket_of TASK-031)" = READY ]
	run git burl doctor
	assert_success
}
