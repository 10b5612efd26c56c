# shellcheck shell=bash
# A real Gitea on 127.0.0.1 (contrib/forge/gitea.sh) for the landing: pr
# tests (DESIGN §17): built once per machine, started once per test file.
# status and output are set by bats' `run`.
# shellcheck disable=SC2154

FORGE_SH="$BATS_TEST_DIRNAME/../contrib/forge/gitea.sh"

# forge_setup_file starts the server, or leaves GITEA_URL empty when Gitea
# cannot be built on this machine (forge_skip then says so once per test).
forge_setup_file() {
	if ! "$FORGE_SH" build >"$BATS_FILE_TMPDIR/gitea-build.log" 2>&1; then
		export GITEA_URL=""
		return 0
	fi
	local envf
	envf=$("$FORGE_SH" start "$BATS_FILE_TMPDIR/gitea") || return 1
	eval "$envf"
	export GITEA_URL GITEA_TOKEN GITEA_REVIEWER_TOKEN GITEA_PID
}

forge_teardown_file() {
	"$FORGE_SH" stop "$BATS_FILE_TMPDIR/gitea"
}

forge_skip() {
	[ -n "${GITEA_URL:-}" ] || skip "Gitea could not be built on this machine (contrib/forge/gitea.sh build): the landing: pr tests against a real forge did not run"
}

# gitea_api METHOD PATH [JSON [TOKEN]]: the API's answer on stdout; fails
# on an HTTP error.
gitea_api() {
	curl -sf -X "$1" -H "Authorization: token ${4:-$GITEA_TOKEN}" -H 'Content-Type: application/json' \
		"${GITEA_URL}api/v1$2" ${3:+-d "$3"}
}

# gitea_merge N STYLE: merge pull request N as a human would on the forge,
# retrying Gitea's 405 "try again later" while it re-checks the request.
gitea_merge() {
	local code
	for _ in $(seq 50); do
		code=$(curl -s -o "$BATS_TEST_TMPDIR/merge.out" -w '%{http_code}' -X POST -H "Authorization: token $GITEA_TOKEN" \
			-H 'Content-Type: application/json' "${GITEA_URL}api/v1/repos/$GITEA_REPO/pulls/$1/merge" -d "{\"Do\":\"$2\"}")
		[ "$code" = 200 ] && return 0
		if [ "$code" != 405 ] || ! grep -qi "try again" "$BATS_TEST_TMPDIR/merge.out"; then
			break
		fi
		sleep 0.2
	done
	echo "merge of #$1 ($2) answered $code: $(cat "$BATS_TEST_TMPDIR/merge.out")" >&2
	return 1
}

# new_gitea_repo: a fresh repository on the Gitea and $REPO, a clone with
# one commit on main, burl initialised with landing: pr (pr_merge: none:
# the tests merge as a human would) and trusted. Git reaches the forge
# with the token from a credential store, which burl's gitea provider
# asks too (git credential fill).
new_gitea_repo() {
	forge_skip
	setup_isolated_git
	local name="r${BATS_TEST_NUMBER}x$RANDOM$RANDOM" hostport
	gitea_api POST /user/repos "{\"name\":\"$name\",\"default_branch\":\"main\"}" >/dev/null
	export GITEA_REPO="burl/$name"
	hostport=${GITEA_URL#http://}
	hostport=${hostport%/}
	printf 'http://burl:%s@%s\n' "$GITEA_TOKEN" "$hostport" >"$HOME/.git-credentials"
	git config --global credential.helper store
	REPO="$BATS_TEST_TMPDIR/repo"
	git init -q "$REPO"
	cd "$REPO" || return 1
	seed_repo
	git remote add origin "${GITEA_URL}$GITEA_REPO.git"
	git push -q -u origin main 2>/dev/null
	# Until the first push is indexed, pull request calls answer 404.
	local _
	for _ in $(seq 50); do
		gitea_api GET "/repos/$GITEA_REPO" | grep -q '"empty":false' && break
		sleep 0.1
	done
	git burl init >/dev/null
	printf 'landing: pr\npr_merge: none\n' >>.burl/.workflow/config.yaml
	git -C .burl commit -q -m "config: land through pull requests" -- .workflow/config.yaml
	git burl trust --yes >/dev/null
}

# pr_field N KEY: one top-level field of pull request N (jq).
pr_field() {
	gitea_api GET "/repos/$GITEA_REPO/pulls/$1" | jq -r ".$2"
}

# last_event ACTION: the last event of that action in the event log.
last_event() {
	all_events | jq -c "select(.action == \"$1\")" | tail -1
}
