#!/usr/bin/env bash
# A real Gitea on 127.0.0.1 for burl's forge tests and the PR tour (DESIGN §17).
#
#   contrib/forge/gitea.sh build        build (or reuse) the binary; prints its path
#   contrib/forge/gitea.sh start DIR    a fresh server with its data in DIR; prints
#                                       shell lines: GITEA_URL, GITEA_TOKEN (user burl),
#                                       GITEA_REVIEWER_TOKEN (user reviewer), GITEA_PID
#   contrib/forge/gitea.sh stop DIR     stop the server started in DIR
#
# Built once per machine from the Go module proxy into
# ${BURL_FORGE_CACHE:-~/.cache/burl-forge}/gitea-$VERSION-$PATCH/gitea, with
# its own module and build caches (see ../shared/forge/NOTES.md for why each
# step is needed: three of Gitea's requirements are refused by the proxy).
set -euo pipefail

VERSION=1.27.3
# Bump when the build steps below change, so a cached binary is rebuilt.
PATCH=p1
CACHE=${BURL_FORGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/burl-forge}
BIN=$CACHE/gitea-$VERSION-$PATCH/gitea

die() {
	echo "gitea.sh: $*" >&2
	exit 1
}

# step N MSG CMD...: one step of the build, said as it starts and every 30 s
# while it runs (the compile is quiet for minutes), its output kept in the
# build log and shown only when it fails.
step() {
	local n=$1 msg=$2
	shift 2
	echo "gitea.sh: [$n/4] $msg" >&2
	"$@" >>"$LOG" 2>&1 &
	local pid=$! t=0
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		t=$((t + 1))
		if [ $((t % 30)) -eq 0 ] && kill -0 "$pid" 2>/dev/null; then
			echo "gitea.sh:       still at it: $((t / 60))m$((t % 60))s" >&2
		fi
	done
	if ! wait "$pid"; then
		tail -20 "$LOG" >&2
		die "step $n failed ($msg); the whole log is $LOG"
	fi
}

# fetch_source: Gitea's source from the module proxy, copied to $work
# (outside any module: the download gives the source in the module cache).
fetch_source() {
	local src
	src=$(cd / && go mod download -json "code.gitea.io/gitea@v$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -n "$src" ] || die "could not download code.gitea.io/gitea@v$VERSION from the module proxy"
	rm -rf "$work"
	cp -r "$src" "$work"
	chmod -R u+w "$work"
}

# patch_and_fetch: the module edits the proxy needs (see ../shared/forge/NOTES.md),
# then every module Gitea needs.
patch_and_fetch() {
	cd "$work"
	go mod edit -replace gitea.dev/actions-proto-go=code.gitea.io/actions-proto-go@v0.6.0
	go mod edit -droprequire gitea.dev/sdk -droprequire gitlab.com/gitlab-org/api/client-go/v2
	# These only import repositories from other forges, and need the two dropped modules.
	rm -f services/migrations/gitlab.go services/migrations/gitlab_test.go \
		services/migrations/gitea_downloader.go services/migrations/gitea_downloader_test.go
	go mod download
}

generate() {
	cd "$work"
	go generate -tags bindata ./modules/options ./modules/templates ./modules/public ./modules/migration
}

compile() {
	cd "$work"
	mkdir -p "$(dirname "$BIN")"
	go build -tags bindata -ldflags '-s -w' -o "$BIN.tmp" .
}

build() {
	if [ -x "$BIN" ]; then
		echo "$BIN"
		return
	fi
	command -v go >/dev/null || die "go is not on PATH; Gitea is built from the Go module proxy"
	mkdir -p "$CACHE"
	# One build at a time per cache: the test files that need Gitea run in
	# parallel (make bats), and two builds would share one work directory.
	exec 9>"$CACHE/build.lock"
	if ! flock -n 9; then
		echo "gitea.sh: waiting for another build of Gitea to finish (lock $CACHE/build.lock)" >&2
		flock 9
	fi
	if [ -x "$BIN" ]; then
		exec 9>&-
		echo "$BIN"
		return
	fi
	work=$CACHE/build-$VERSION
	LOG=$CACHE/build-$VERSION.log
	: >"$LOG"
	export GOMODCACHE=$CACHE/gomod GOCACHE=$CACHE/gocache CGO_ENABLED=0
	export GOFLAGS="-buildvcs=false -mod=mod"
	local began=$SECONDS
	echo "gitea.sh: building Gitea $VERSION into $BIN, once per machine (4-11 minutes on 2 cores; log: $LOG)" >&2
	step 1 "downloading Gitea's source from the Go module proxy" fetch_source
	step 2 "downloading the modules it needs" patch_and_fetch
	step 3 "generating its embedded assets" generate
	step 4 "compiling (the long step)" compile
	mv "$BIN.tmp" "$BIN"
	rm -rf "$work"
	exec 9>&-
	echo "gitea.sh: built in $(((SECONDS - began) / 60))m$(((SECONDS - began) % 60))s" >&2
	echo "$BIN"
}

free_port() {
	local p
	for _ in $(seq 50); do
		p=$((30000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	die "found no free port on 127.0.0.1"
}

start() {
	local d=${1:?usage: gitea.sh start DIR}
	local bin port
	bin=$(build)
	mkdir -p "$d"
	d=$(cd "$d" && pwd)
	port=$(free_port)
	local url="http://127.0.0.1:$port/"
	local secret token
	secret=$("$bin" generate secret SECRET_KEY)
	token=$("$bin" generate secret INTERNAL_TOKEN)
	cat >"$d/app.ini" <<EOF
RUN_USER = $(id -un)
WORK_PATH = $d
I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true
[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = $port
ROOT_URL = $url
DISABLE_SSH = true
START_SSH_SERVER = false
OFFLINE_MODE = true
LFS_START_SERVER = false
APP_DATA_PATH = $d/data
[database]
DB_TYPE = sqlite3
PATH = $d/data/gitea.db
[repository]
ROOT = $d/repos
DEFAULT_BRANCH = main
[security]
INSTALL_LOCK = true
SECRET_KEY = $secret
INTERNAL_TOKEN = $token
[oauth2]
ENABLED = false
[mailer]
ENABLED = false
[service]
DISABLE_REGISTRATION = true
[session]
PROVIDER = memory
[cache]
ADAPTER = memory
[actions]
ENABLED = false
[log]
MODE = file
LEVEL = warn
ROOT_PATH = $d/log
EOF
	local g=("$bin" -c "$d/app.ini" -w "$d")
	"${g[@]}" migrate >"$d/setup.log" 2>&1 || die "gitea migrate failed: see $d/setup.log"
	local u
	for u in burl reviewer; do
		"${g[@]}" admin user create --admin --username "$u" --password "burl-test-$u" \
			--email "$u@example.invalid" --must-change-password=false >>"$d/setup.log" 2>&1 ||
			die "creating user $u failed: see $d/setup.log"
	done
	local tok rtok
	tok=$("${g[@]}" admin user generate-access-token --username burl --token-name burl \
		--scopes write:repository,write:issue,write:user --raw 2>>"$d/setup.log")
	rtok=$("${g[@]}" admin user generate-access-token --username reviewer --token-name review \
		--scopes write:repository,write:issue,write:user --raw 2>>"$d/setup.log")
	"${g[@]}" web >"$d/web.log" 2>&1 &
	local pid=$!
	echo "$pid" >"$d/pid"
	local i
	for i in $(seq 200); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null &&
			[ "$(curl -s -o /dev/null -w '%{http_code}' "${url}api/v1/version")" = 200 ]; then
			break
		fi
		kill -0 "$pid" 2>/dev/null || die "gitea web exited: see $d/web.log"
		[ "$i" -lt 200 ] || die "gitea did not answer on $url within 20 s: see $d/web.log"
		sleep 0.1
	done
	{
		echo "GITEA_URL=$url"
		echo "GITEA_TOKEN=$tok"
		echo "GITEA_REVIEWER_TOKEN=$rtok"
		echo "GITEA_PID=$pid"
	} | tee "$d/env"
}

stop() {
	local d=${1:?usage: gitea.sh stop DIR}
	[ -f "$d/pid" ] || return 0
	local pid
	pid=$(cat "$d/pid")
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$d/pid"
}

case ${1:-} in
build) build ;;
start) start "${2:-}" ;;
stop) stop "${2:-}" ;;
*) die "usage: gitea.sh build | start DIR | stop DIR" ;;
esac
