#!/usr/bin/env bash
# Sourced by the bench scripts: a git of their own, which reads no user or
# system config, names every commit NAME and never gcs behind a measure.
# isolated_git DIR NAME: the config file in DIR, exported for every git,
# and burl's trust store in DIR too (what a bench trusts is not yours).
isolated_git() {
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$1/gitconfig" XDG_STATE_HOME="$1/state"
	git config --file "$GIT_CONFIG_GLOBAL" user.name "$2"
	git config --file "$GIT_CONFIG_GLOBAL" user.email "$2@burl.invalid"
	git config --file "$GIT_CONFIG_GLOBAL" init.defaultBranch main
	git config --file "$GIT_CONFIG_GLOBAL" gc.auto 0
}

# new_repo DIR: a repository with burl initialised, no parallel cap and no
# scope-conflict skipping (the bench measures mechanics, not policy).
new_repo() {
	local d=$1
	mkdir -p "$d/src"
	git init -q "$d"
	printf 'package main\n\nfunc main() {}\n' >"$d/src/main.go"
	git -C "$d" add -A
	git -C "$d" commit -q -m init
	(cd "$d" && git burl init >/dev/null)
	sed -i -e 's/^max_parallel: .*/max_parallel: 0/' -e 's/^conflict_policy: .*/conflict_policy: ignore/' \
		-e 's/^build_command: .*/build_command: ""/' "$d/.burl/.workflow/config.yaml"
	git -C "$d/.burl" commit -q -am "bench: config"
}

# gen_tasks DIR N [all-ready]: N task files written the way `git burl add`
# writes them, spread over the buckets like a long-lived project (most DONE)
# unless all-ready, committed on the workflow branch in one commit.
gen_tasks() {
	local d=$1 n=$2 mode=${3:-mixed}
	awk -v n="$n" -v dir="$d/.burl/.workflow" -v mode="$mode" 'BEGIN {
		split("critical high medium low", pr, " ")
		for (i = 1; i <= n; i++) {
			id = sprintf("TASK-%03d", i)
			slug = sprintf("implement-feature-%d-of-the-parser", i)
			b = "READY"; r = i % 100
			if (mode == "mixed") {
				if (r < 70) b = "DONE"; else if (r < 90) b = "READY"; else if (r < 95) b = "QA"; else if (r < 98) b = "DOING"; else b = "BLOCKED"
			}
			f = dir "/" b "/" id "-" slug ".md"
			started = (b == "READY" || b == "BLOCKED") ? "null" : "2024-05-01T10:00:00Z"
			branch = (b == "READY" || b == "BLOCKED") ? "null" : "task-" substr(id, 6) "-" slug
			print "---" > f
			print "id: " id > f
			print "title: Implement feature " i " of the parser" > f
			print "priority: " pr[i % 4 + 1] > f
			printf "created: 2024-01-01T%02d:%02d:%02dZ\n", int(i / 3600) % 24, int(i / 60) % 60, i % 60 > f
			print "\n# Ownership/attempts" > f
			print "assigned_to: " (started == "null" ? "null" : "agent-" (i % 16)) > f
			print "qa_attempts: 0\n\n# Lifecycle timestamps" > f
			print "started_at: " started > f
			print "submitted_at: null\ncompleted_at: null\n\n# Git/worktree state (populated on claim)" > f
			print "worktree: " (branch == "null" ? "null" : ".worktrees/" branch) > f
			print "branch: " branch > f
			print "base_sha: null\n\n# Scope control\naffects:\n  - src/parser/p" i ".go" > f
			print "affects_globs: []\nmust_not_touch: []\n\n# Dependency control\ndepends_on: []\n\n# Freeform\ntags: [parser]\n---" > f
			print "\n## Objective\nFeature " i " parses its part of the grammar.\n\n## Acceptance Criteria\n- [ ] tests pass\n" > f
			print "## Context\nSee the grammar.\n\n## Implementation Notes\n<!-- Worker fills -->\n\n## QA Report\n<!-- Validator fills (tool can append) -->" > f
			close(f)
		}
	}'
	git -C "$d/.burl" add -A
	git -C "$d/.burl" commit -q -m "bench: $n tasks"
}

# gitea_up GITEA_SH DIR: a Gitea started by GITEA_SH (contrib/forge/gitea.sh)
# in DIR/gitea (GITEA_URL, GITEA_TOKEN, ... exported) that git pushes to,
# and burl's gitea provider asks, with the token from a credential store of
# the bench's own (never the environment's). The caller stops it: GITEA_SH
# stop DIR/gitea.
gitea_up() {
	local hostport
	eval "$("$1" start "$2/gitea")"
	shift
	export GITEA_URL GITEA_TOKEN GITEA_REVIEWER_TOKEN GITEA_PID
	hostport=${GITEA_URL#http://}
	hostport=${hostport%/}
	printf 'http://burl:%s@%s\n' "$GITEA_TOKEN" "$hostport" >"$1/credentials"
	chmod 600 "$1/credentials"
	git config --file "$GIT_CONFIG_GLOBAL" credential.helper "store --file=$1/credentials"
	unset BURL_FORGE_TOKEN
}

# api METHOD PATH [JSON [TOKEN]]: the Gitea API's answer; fails on an HTTP
# error.
api() {
	curl -sf -X "$1" -H "Authorization: token ${4:-$GITEA_TOKEN}" -H 'Content-Type: application/json' \
		"${GITEA_URL}api/v1$2" ${3:+-d "$3"}
}

# gitea_repo DIR NAME: a repository NAME on the Gitea, and DIR a clone of
# it with one commit on main, pushed, with burl initialised; the shell is
# left in DIR.
gitea_repo() {
	api POST /user/repos "{\"name\":\"$2\",\"default_branch\":\"main\"}" >/dev/null
	git init -q "$1"
	cd "$1" || return 1
	echo x >README.md
	git add -A && git commit -q -m init
	git remote add origin "${GITEA_URL}burl/$2.git"
	git push -q -u origin main 2>/dev/null
	# Until the first push is indexed, pull request calls answer 404.
	for _ in $(seq 100); do
		api GET "/repos/burl/$2" | grep -q '"empty":false' && break
		sleep 0.1
	done
	git burl init >/dev/null
}
