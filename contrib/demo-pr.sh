#!/usr/bin/env bash
# The README's "Landing through pull requests" tour, run for real against
# a Gitea on loopback (contrib/forge/gitea.sh): every command is printed
# with its output. `make demo-pr` runs it, and CI does where Gitea builds.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
demo=$(mktemp -d "${TMPDIR:-/tmp}/burl-demo-pr.XXXXXX")
forge="$demo/forge"
trap '"$here/forge/gitea.sh" stop "$forge"; rm -rf "$demo"' EXIT
eval "$("$here/forge/gitea.sh" start "$forge")"
hostport=${GITEA_URL#http://}
hostport=${hostport%/}
# shellcheck source=contrib/demo-lib.sh
. "$here/demo-lib.sh"
demo_home "$demo"
export BURL_ACTOR="lead"
# The server's random port shows as 3000, the token as the variable.
DEMO_SED="s|$demo|/tmp/demo|g; s|$hostport|127.0.0.1:3000|g; s|$GITEA_TOKEN|\$BURL_FORGE_TOKEN|g"

# api METHOD PATH [JSON]: the forge's REST API, as the user "burl".
api() {
	curl -sf -X "$1" -H "Authorization: token $GITEA_TOKEN" -H 'Content-Type: application/json' \
		"${GITEA_URL}api/v1$2" ${3:+-d "$3"} >/dev/null
}

api POST /user/repos '{"name":"game","default_branch":"main"}'
git init -q "$demo/game"
cd "$demo/game"
mkdir -p src
printf 'package game\n\nfunc Jump() int { return 0 }\n' >src/jump.go
git add -A && git commit -q -m "initial commit"
# git pushes with the same token, from its credential store.
printf 'http://burl:%s@%s\n' "$GITEA_TOKEN" "$hostport" >"$HOME/.git-credentials"
git config --global credential.helper store
git remote add origin "${GITEA_URL}burl/game.git"
git push -q -u origin main 2>/dev/null
for _ in $(seq 50); do
	curl -sf -H "Authorization: token $GITEA_TOKEN" "${GITEA_URL}api/v1/repos/burl/game" | grep -q '"empty":false' && break
	sleep 0.1
done
export BURL_FORGE_TOKEN=$GITEA_TOKEN

git burl init >/dev/null
printf 'landing: pr\nforge: gitea\npr_merge: none\n' >>.burl/.workflow/config.yaml
printf '$ printf '"'"'landing: pr\\nforge: gitea\\npr_merge: none\\n'"'"' >> .burl/.workflow/config.yaml\n\n'
run git -C .burl commit -q -m "land through pull requests" .workflow/config.yaml
run git burl trust --yes
git burl add "Implement jump" --affects src/jump.go --description "Space makes the player jump" >/dev/null
wt=$(git burl claim TASK-001 | tail -1)
(cd "$wt" && printf 'package game\n\nfunc Jump() int { return 3 }\n' >src/jump.go && git commit -q -am "Jump higher" && git burl submit >/dev/null)
printf '$ git burl add ...; git burl claim; (commit in the worktree); git burl submit\n\n'
run git burl approve TASK-001
run git burl status
printf '$ # a reviewer merges pull request #1 on the forge (rebase)\n\n'
api POST /repos/burl/game/pulls/1/merge '{"Do":"rebase"}'
run git burl sync
run git burl log --task TASK-001
