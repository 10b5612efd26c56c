# shellcheck shell=bash
# A real Gitea on 127.0.0.1 (contrib/forge/gitea.sh) for the landing: pr
# tests (DESIGN §17): built once per machine, started once per test file.
# status and output are set by bats' `run`.
# shellcheck disable=SC2154

FORGE_SH="$BATS_TEST_DIRNAME/../contrib/forge/gitea.sh"

# forge_setup_file starts the server, or leaves GITEA_URL empty when Gitea
# cannot be built on this machine (forge_skip then says so once per test).
forge_setup_file() {
	# A first build takes minutes: its steps show as they happen, on bats'
	# own output (fd 3), and stay in the file's log.
	if ! "$FORGE_SH" build 2> >(tee "$BATS_FILE_TMPDIR/gitea-build.log" >&3) >/dev/null; then
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

# gitea_merge N STYLE [DELETE]: merge pull request N as a human would on
# the forge (with DELETE "delete", deleting its branch as it merges),
# retrying Gitea's 405 "try again later" while it re-checks the request.
gitea_merge() {
	local code del=false
	[ "${3:-}" = delete ] && del=true
	for _ in $(seq 50); do
		code=$(curl -s -o "$BATS_TEST_TMPDIR/merge.out" -w '%{http_code}' -X POST -H "Authorization: token $GITEA_TOKEN" \
			-H 'Content-Type: application/json' "${GITEA_URL}api/v1/repos/$GITEA_REPO/pulls/$1/merge" -d "{\"Do\":\"$2\",\"delete_branch_after_merge\":$del}")
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

# gitea_require_checks CONTEXT...: protect main on the Gitea with required
# status checks (DESIGN §21), as a team whose main takes only green pull
# requests has it: Gitea then refuses any merge before they passed.
gitea_require_checks() {
	local ctx
	ctx=$(printf '%s\n' "$@" | jq -R . | jq -sc .)
	gitea_api POST "/repos/$GITEA_REPO/branch_protections" \
		"{\"rule_name\":\"main\",\"enable_status_check\":true,\"status_check_contexts\":$ctx}" >/dev/null
}

# ci_post SHA STATE CONTEXT [DESCRIPTION [TARGET_URL]]: a commit status, as
# a CI posts it through Gitea's API.
ci_post() {
	gitea_api POST "/repos/$GITEA_REPO/statuses/$1" "$(jq -nc --arg s "$2" --arg c "$3" --arg d "${4:-}" --arg u "${5:-}" \
		'{state: $s, context: $c, description: $d, target_url: $u}')" >/dev/null
}

# ci_standin_start: a CI stand-in in the background. Every new head of an
# open pull request and every burl/queue/* branch on the Gitea gets a
# pending status of context ci/test at once, then, CI_DELAY (0.3) seconds
# later, failure when a commit since the head's merge base with main says
# "breaks-ci" (its log, ending in that commit's subject, under
# $BATS_TEST_TMPDIR/ci-logs/SHA.log; its target URL
# http://ci.invalid/logs/SHA), nothing more when one says "ci-silent",
# else success. Each head it judged is appended to
# $BATS_TEST_TMPDIR/ci-judged. ci_standin_stop ends it. It reads the
# commits from a clone of its own, as a CI machine would.
ci_standin_start() {
	local ci="$BATS_TEST_TMPDIR/ci.git"
	mkdir -p "$BATS_TEST_TMPDIR/ci-logs"
	: >"$BATS_TEST_TMPDIR/ci-judged"
	git clone -q --bare "$(git -C "$REPO" remote get-url origin)" "$ci"
	(
		declare -A seen
		while :; do
			heads=$({
				gitea_api GET "/repos/$GITEA_REPO/pulls?state=open&limit=50" | jq -r '.[].head.sha'
				git -C "$ci" ls-remote origin 'refs/heads/burl/queue/*' | cut -f1
			} 2>/dev/null)
			for sha in $heads; do
				[ -z "${seen[$sha]:-}" ] || continue
				seen[$sha]=1
				ci_post "$sha" pending ci/test "running"
				sleep "${CI_DELAY:-0.3}"
				git -C "$ci" fetch -q origin '+refs/heads/*:refs/heads/*' 2>/dev/null
				msgs=$(git -C "$ci" log --format=%s "$(git -C "$ci" merge-base main "$sha")..$sha")
				if grep -q ci-silent <<<"$msgs"; then
					echo "$sha silent" >>"$BATS_TEST_TMPDIR/ci-judged"
				elif grep -q breaks-ci <<<"$msgs"; then
					{
						echo "=== RUN   TestJump"
						echo "--- FAIL: TestJump (0.00s)"
						echo "    jump_test.go:9: $(grep breaks-ci <<<"$msgs" | head -1)"
						echo "FAIL"
					} >"$BATS_TEST_TMPDIR/ci-logs/$sha.log"
					ci_post "$sha" failure ci/test "1 test failed" "http://ci.invalid/logs/$sha"
					echo "$sha failure" >>"$BATS_TEST_TMPDIR/ci-judged"
				else
					ci_post "$sha" success ci/test "all tests passed" "http://ci.invalid/logs/$sha"
					echo "$sha success" >>"$BATS_TEST_TMPDIR/ci-judged"
				fi
			done
			sleep 0.1
		done
	) 3>&- &
	CI_STANDIN_PID=$!
}

ci_standin_stop() {
	if [ -n "${CI_STANDIN_PID:-}" ]; then
		kill "$CI_STANDIN_PID" 2>/dev/null || true
		wait "$CI_STANDIN_PID" 2>/dev/null || true
		CI_STANDIN_PID=""
	fi
}

# ci_log_script: the path of a ci_log_command for the stand-in's logs: it
# prints the log its target URL names.
ci_log_script() {
	local s="$BATS_TEST_TMPDIR/ci-log"
	cat >"$s" <<SH
#!/bin/sh
cat "$BATS_TEST_TMPDIR/ci-logs/\${BURL_CHECK_URL##*/}.log"
SH
	chmod +x "$s"
	echo "$s"
}
