#!/usr/bin/env bash
# gatebox.sh: the build gate in its box (DESIGN §24) against the same build
# unconfined, through burl itself: `git burl validate` of a task whose
# build_command is `go test -count=1 ./...` of a small generated Go module
# (BENCH_GATE_PKGS packages, a few tests each; the build cache warm), in
# two repositories alike but that one says sandbox: none (trusted) in
# config.yaml. Prints a markdown row (goal <= 1.2x). Needs git-burl and go
# on PATH, and bubblewrap; hyperfine when installed, else N interleaved
# runs and their medians.
set -euo pipefail
n=${BENCH_GATE_N:-10}
pkgs=${BENCH_GATE_PKGS:-4}
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-gate-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
# shellcheck source=contrib/bench/lib.sh
. "$(dirname "$0")/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench GOFLAGS=-mod=mod GOTOOLCHAIN=local

if ! bwrap --dev-bind / / --unshare-user --unshare-pid --proc /proc true 2>/dev/null; then
	echo "| the build gate (go test ./...) in its box against unconfined | bubblewrap does not work here | — | — | ≤ 1.2× |"
	exit 0
fi

# module DIR: a Go module of $pkgs packages, each a few functions and tests.
module() {
	local i
	printf 'module example.com/gatebench\n\ngo 1.21\n' >"$1/go.mod"
	for i in $(seq 1 "$pkgs"); do
		mkdir -p "$1/p$i"
		cat >"$1/p$i/p.go" <<GO
package p$i

import "strings"

// Words splits and counts.
func Words(s string) map[string]int {
	out := map[string]int{}
	for _, w := range strings.Fields(s) {
		out[strings.ToLower(w)]++
	}
	return out
}
GO
		cat >"$1/p$i/p_test.go" <<GO
package p$i

import "testing"

func TestWords(t *testing.T) {
	if got := Words("a b A c")["a"]; got != 2 {
		t.Fatal(got)
	}
}

func TestEmpty(t *testing.T) {
	if len(Words("")) != 0 {
		t.Fatal("not empty")
	}
}
GO
	done
}

# repo DIR [SANDBOX]: the module in a repository, TASK-001 claimed with a
# commit of its own, build_command the module's tests.
repo() {
	git init -q "$1"
	module "$1"
	(
		cd "$1"
		git add -A && git commit -q -m init
		git burl init >/dev/null
		sed -i 's|^build_command:.*|build_command: "go test -count=1 ./..."|' .burl/.workflow/config.yaml
		[ -z "${2:-}" ] || printf 'sandbox: %s\n' "$2" >>.burl/.workflow/config.yaml
		git -C .burl commit -q -am config
		git burl trust --yes >/dev/null
		git burl add "Gate" --affects-glob 'p1/**' >/dev/null
		wt=$(git burl claim TASK-001 | tail -n 1)
		echo "// more" >>"$wt/p1/p.go"
		git -C "$wt" commit -q -am "work"
		git burl validate TASK-001 >/dev/null # the build cache warm
	)
}
repo "$W/boxed"
repo "$W/plain" none

ms() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
if command -v hyperfine >/dev/null && command -v jq >/dev/null; then
	hyperfine -N --warmup 1 --runs "$n" --export-json "$W/h.json" \
		"git -C $W/plain burl validate TASK-001" "git -C $W/boxed burl validate TASK-001" >/dev/null 2>&1
	p=$(jq '.results[0].median * 1000' "$W/h.json")
	b=$(jq '.results[1].median * 1000' "$W/h.json")
	how="hyperfine, $n runs each, medians"
else
	plain="" boxed=""
	for _ in $(seq 1 "$n"); do
		plain="$plain $(ms git -C "$W/plain" burl validate TASK-001)"
		boxed="$boxed $(ms git -C "$W/boxed" burl validate TASK-001)"
	done
	# shellcheck disable=SC2086 # word lists
	p=$(med $plain) b=$(med $boxed)
	how="$n interleaved runs each, medians"
fi
printf '| validate, build_command go test ./... (%d packages, warm cache) in the gate box, against sandbox: none (%s) | %.0f ms | unconfined %.0f ms | %.2f× | ≤ 1.2× |\n' \
	"$pkgs" "$how" "$b" "$p" "$(echo "$b / $p" | bc -l)"
