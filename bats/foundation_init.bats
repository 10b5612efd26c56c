#!/usr/bin/env bats
# git burl init: the workflow branch and worktree, the scaffolding, and
# attaching again (second run, fresh clone, deleted worktree).

load helpers
load foundation

@test "init creates the workflow worktree, buckets and config on branch burl" {
	new_repo
	umask 022
	main_before=$(git rev-parse main)

	run git burl init
	assert_success
	assert_output_contains "Created workflow branch burl"

	for d in READY DOING QA DONE BLOCKED events locks; do
		[ -d "$WF/$d" ] || { echo "missing $WF/$d"; return 1; }
	done
	[ -f "$WF/config.yaml" ]
	grep -qx 'main_branch: main' "$WF/config.yaml"
	grep -qx 'locks/' "$WF/.gitignore"
	grep -qx 'events/\*.ndjson merge=union' "$WF/.gitattributes"
	[ -d .worktrees ]
	grep -qx '/.burl/' .git/info/exclude
	grep -qx '/.worktrees/' .git/info/exclude

	# .burl is a worktree of branch burl, which shares no history with main.
	[ "$(git -C .burl symbolic-ref --short HEAD)" = burl ]
	run git merge-base main burl
	assert_failure 1
	[ "$(git rev-parse main)" = "$main_before" ]

	# The scaffolding is committed; locks never are.
	git -C .burl ls-files --error-unmatch .workflow/config.yaml .workflow/.gitignore \
		.workflow/.gitattributes .workflow/READY/.gitkeep .workflow/BLOCKED/.gitkeep >/dev/null
	[ -z "$(git -C .burl ls-files .workflow/locks)" ]
	[ -z "$(git -C .burl status --porcelain)" ]
	all_events | grep -q '"action":"init"'

	# Nothing shows up in the user's own worktree.
	[ -z "$(git status --porcelain --ignored=no)" ]

	# Files burl creates are as readable as any other file the user makes.
	[ "$(ls -l "$WF/config.yaml" | cut -c1-10)" = "-rw-r--r--" ]
}

@test "init detects the build command from the repository" {
	new_repo
	printf 'module example.com/x\n' >go.mod
	git add go.mod && git commit -q -m "go module"
	git burl init >/dev/null
	grep -qx 'build_command: go test ./...' "$WF/config.yaml"
}

@test "a second init changes nothing" {
	new_repo
	git burl init >/dev/null
	head=$(burl_head)
	before=$(digest .burl)
	exclude_before=$(cat .git/info/exclude)

	run git burl init
	assert_success
	assert_output_contains "already initialised"
	[ "$(burl_head)" = "$head" ]
	[ "$(digest .burl)" = "$before" ]
	[ "$(cat .git/info/exclude)" = "$exclude_before" ]
	[ -z "$(git status --porcelain)" ]
}

@test "init repairs missing scaffolding and commits only that" {
	new_burl_repo
	git -C .burl rm -q .workflow/QA/.gitkeep
	git -C .burl commit -q -m "lose a bucket"
	rmdir .burl/.workflow/QA 2>/dev/null || true
	head=$(burl_head)

	git burl init --json >"$BATS_TEST_TMPDIR/out.json"
	[ -d "$WF/QA" ]
	[ "$(git -C .burl rev-parse HEAD~1)" = "$head" ]
	[ "$(git -C .burl diff --name-only HEAD~1 HEAD | LC_ALL=C sort | tr '\n' ' ')" = ".workflow/QA/.gitkeep $(event_shard) " ]
	have_python || skip "python3 not installed"
	json_check "$BATS_TEST_TMPDIR/out.json" 'd["created"] == [".burl/.workflow/QA/.gitkeep"]'
}

@test "init commits scaffolding an interrupted init left uncommitted, and nothing else" {
	new_repo
	git burl init >/dev/null
	# The state a crash between writing the scaffolding and committing it
	# leaves: files on disk, untracked, no init commit.
	git -C .burl reset -q --soft HEAD~1
	git -C .burl rm -q -r --cached .workflow
	[ -n "$(git -C .burl status --porcelain)" ]

	run git burl init
	assert_success
	assert_output_contains "committing .burl/.workflow/config.yaml, left uncommitted by an interrupted init"
	git -C .burl ls-files --error-unmatch .workflow/config.yaml .workflow/.gitignore .workflow/READY/.gitkeep >/dev/null
	[ -z "$(git -C .burl status --porcelain)" ]

	# A user's uncommitted edit of a committed file is theirs: init leaves it.
	printf '# my note\n' >>"$WF/config.yaml"
	head=$(burl_head)
	run git burl init
	assert_success
	[ "$(burl_head)" = "$head" ]
	[ "$(git -C .burl status --porcelain)" = " M .workflow/config.yaml" ]
}

@test "init --json reports what it did" {
	new_repo
	git burl init --json >"$BATS_TEST_TMPDIR/first.json"
	git burl init --json >"$BATS_TEST_TMPDIR/second.json"
	have_python || skip "python3 not installed"
	json_check "$BATS_TEST_TMPDIR/first.json" 'd["ok"] is True' 'd["how"] == "created"' \
		'".burl/.workflow/config.yaml" in d["created"]' 'len(d["commit"]) == 40'
	json_check "$BATS_TEST_TMPDIR/second.json" 'd["how"] == "existing"' 'd["created"] == []' '"commit" not in d'
}

@test "init in a fresh clone attaches to the workflow branch another clone pushed" {
	new_burl_repo
	add_task "Made on the first machine" --priority high
	git -C .burl push -q origin burl

	clone_repo "$BATS_TEST_TMPDIR/second"
	cd "$BATS_TEST_TMPDIR/second"
	run git burl status
	assert_failure 1
	assert_output_contains "git burl init"

	run git burl init
	assert_success
	assert_output_contains "from the remote"
	# The work is already there: the next step is to look at it.
	assert_output_contains "Next: git burl status (1 task(s) are open on the branch), then git burl claim"
	refute_output_contains "git burl add"
	[ "$(git -C .burl rev-parse HEAD)" = "$(git rev-parse origin/burl)" ]
	[ "$(git rev-parse burl)" = "$(git -C "$REPO" rev-parse burl)" ]
	[ -d .worktrees ]
	grep -qx '/.burl/' .git/info/exclude
	[ -z "$(git status --porcelain)" ]

	run git burl status
	assert_success
	assert_output_contains "TASK-001"
	assert_output_contains "Made on the first machine"
}

@test "init fetches the workflow branch when the clone predates it" {
	new_repo
	clone_repo "$BATS_TEST_TMPDIR/early"
	git burl init >/dev/null
	add_task "Pushed after the clone"
	git -C .burl push -q origin burl

	cd "$BATS_TEST_TMPDIR/early"
	run git burl init
	assert_success
	assert_output_contains "from the remote"
	[ "$(git -C .burl rev-parse HEAD)" = "$(git -C "$REPO" rev-parse burl)" ]
	run git burl show TASK-001
	assert_success
	assert_output_contains "Pushed after the clone"
}

@test "init --main-branch and --remote are recorded; bad names are refused before anything is written" {
	new_repo
	run git burl init --main-branch "has space"
	assert_failure 1
	assert_output_contains '--main-branch "has space" is not a branch or remote name'
	[ ! -e .burl ]
	[ -z "$(burl_head)" ]
	run git burl init --remote ../up
	assert_failure 1
	[ ! -e .burl ]

	run git burl init --main-branch trunk --remote upstream
	assert_success
	grep -qx 'main_branch: trunk' "$WF/config.yaml"
	grep -qx 'remote: upstream' "$WF/config.yaml"
	run git burl status
	assert_success
}

@test "init without a remote creates the branch locally" {
	setup_isolated_git
	REPO="$BATS_TEST_TMPDIR/solo"
	git init -q "$REPO" && cd "$REPO"
	git commit -q --allow-empty -m "first"
	run git burl init
	assert_success
	[ -n "$(burl_head)" ]
	grep -qx 'remote: origin' "$WF/config.yaml"
}

@test "init in a repository without commits fails and says how to fix it" {
	setup_isolated_git
	git init -q "$BATS_TEST_TMPDIR/empty"
	cd "$BATS_TEST_TMPDIR/empty"

	run git burl init
	assert_failure 1
	assert_output_contains "no commits yet"
	assert_output_contains "git commit"
	[ ! -e .burl ]
	[ ! -e .worktrees ]
	[ -z "$(git for-each-ref refs/heads)" ]
}

@test "init after rm -rf .burl re-attaches to the same branch" {
	new_burl_repo
	add_task "Survives the worktree"
	head=$(burl_head)
	rm -rf .burl

	run git burl status
	assert_failure 1
	assert_output_contains "git burl init"

	run git burl init
	assert_success
	assert_output_contains "Attached"
	assert_output_contains "existing"
	[ "$(burl_head)" = "$head" ]
	[ "$(git -C .burl rev-parse HEAD)" = "$head" ]
	run git burl show 1
	assert_success
	assert_output_contains "Survives the worktree"
}

@test "init refuses a .burl directory that is not the workflow worktree" {
	new_repo
	mkdir .burl
	echo "mine" >.burl/notes.txt

	run git burl init
	assert_failure 1
	assert_output_contains ".burl exists but is not a git worktree"
	assert_output_contains "burl.worktree"
	[ "$(cat .burl/notes.txt)" = mine ]
	[ -z "$(burl_head)" ]
}

@test "init from a subdirectory or a linked worktree sets up the main worktree" {
	new_repo
	git worktree add -q "$BATS_TEST_TMPDIR/linked" -b feature
	cd "$BATS_TEST_TMPDIR/linked"
	run git burl init
	assert_success
	[ -f "$REPO/$WF/config.yaml" ]
	[ ! -e "$BATS_TEST_TMPDIR/linked/.burl" ]
	# The feature branch checked out here is not mistaken for main.
	grep -qx 'main_branch: main' "$REPO/$WF/config.yaml"

	cd "$REPO/src"
	run git burl init
	assert_success
	assert_output_contains "already initialised"
	[ ! -e "$REPO/src/.burl" ]
}

@test "every verb works from the root, a subdirectory, .burl/ and a linked worktree" {
	new_burl_repo
	add_task "Visible everywhere"
	git worktree add -q "$BATS_TEST_TMPDIR/linked" -b feature
	mkdir -p "$REPO/src/deep/er"

	for dir in "$REPO" "$REPO/src/deep/er" "$REPO/.burl" "$REPO/$WF/READY" "$BATS_TEST_TMPDIR/linked"; do
		cd "$dir"
		run git burl status
		assert_success || { echo "status in $dir"; return 1; }
		assert_output_contains "TASK-001"
		run git burl show 1
		assert_success || { echo "show in $dir"; return 1; }
		assert_output_contains "file:          .burl/.workflow/READY/TASK-001-visible-everywhere.md"
		run git burl log --task 1
		assert_success
		assert_output_contains "add"
	done

	cd "$BATS_TEST_TMPDIR/linked"
	run git burl add "Added from a linked worktree"
	assert_success
	[ -f "$REPO/$WF/READY/TASK-002-added-from-a-linked-worktree.md" ]
	[ ! -e "$BATS_TEST_TMPDIR/linked/.burl" ]
	[ -z "$(git -C "$BATS_TEST_TMPDIR/linked" status --porcelain)" ]
}

@test "verbs in a repository without burl say to run git burl init" {
	new_repo
	for verb in status "show 1" "log" "add x" "worktree 1"; do
		# shellcheck disable=SC2086
		run git burl $verb
		assert_failure 1 || { echo "verb: $verb"; return 1; }
		assert_output_contains "burl is not initialised"
		assert_output_contains "Fix: git burl init"
	done
	[ ! -e .burl ]

	run git burl status --json
	assert_failure 1
	[[ "$output" == '{"ok":false,"error":{"kind":"user"'* ]]
}

@test "verbs outside any git repository fail with exit 1" {
	setup_isolated_git
	export GIT_CEILING_DIRECTORIES="$BATS_TEST_TMPDIR"
	mkdir "$BATS_TEST_TMPDIR/plain"
	cd "$BATS_TEST_TMPDIR/plain"
	run git burl status
	assert_failure 1
	assert_output_contains "not inside a git repository"
	run git burl init
	assert_failure 1
}

@test "four inits at once on a fresh repository all succeed and leave one workflow" {
	new_repo
	for i in 1 2 3 4; do
		(git burl init >"$BATS_TEST_TMPDIR/out.$i" 2>&1; echo $? >"$BATS_TEST_TMPDIR/rc.$i") &
	done
	wait
	for i in 1 2 3 4; do
		[ "$(cat "$BATS_TEST_TMPDIR/rc.$i")" = 0 ] || { cat "$BATS_TEST_TMPDIR/out.$i" >&2; return 1; }
	done
	run git burl doctor
	assert_success
	[ "$(git worktree list | grep -c '/.burl ')" -eq 1 ]
	[ ! -e .git/burl-init.lock ]
}

@test "an init lock left by a killed init names the file to remove" {
	new_repo
	printf '{"owner":"x","host":"%s","pid":999999,"created_at":"2020-01-01T00:00:00Z","action":"init"}\n' "$(uname -n)" >.git/burl-init.lock
	run git burl init
	assert_failure 4
	assert_output_contains "another git burl init is running"
	assert_output_contains "remove $(cd .git && pwd -P)/burl-init.lock"
	rm .git/burl-init.lock
	run git burl init
	assert_success
}
