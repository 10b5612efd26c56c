#!/usr/bin/env bash
# git burl mcp against the command line it serves (DESIGN §23), reported not
# asserted: over a workflow of BENCH_MCP_TASKS tasks (most DONE, as
# run.sh's status rows), a `tools/call status` round trip on a warm server
# beside `git burl status --json` (hyperfine, warm, output discarded).
# The client is internal/mcpcall: with --raw it writes the JSON-RPC line and
# times until the whole answer is read (not parsed, as the command line's
# output is not); through the Go SDK's client the answer is also decoded,
# which for a 6 MB document is most of the time. Median of BENCH_MCP_CALLS
# calls after one warm-up, (min–max).
# Needs git-burl on PATH, go, hyperfine and jq. Prints markdown rows.
set -euo pipefail
N=${BENCH_MCP_TASKS:-10000}
CALLS=${BENCH_MCP_CALLS:-30}
RUNS=${BENCH_RUNS:-10}
here=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/burl-mcp-bench.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
# shellcheck source=contrib/bench/lib.sh
. "$here/lib.sh"
isolated_git "$W" bench
export BURL_ACTOR=bench

(cd "$here/../.." && GOFLAGS='' go build -o "$W/mcpcall" ./internal/mcpcall)
d=$W/repo
new_repo "$d"
gen_tasks "$d" "$N"
git -C "$d" burl status --json >/dev/null # the status cache, as a warm status finds it

# cli ARGS...: the command line's median and range over $RUNS runs.
cli() {
	hyperfine -N -w 2 -r "$RUNS" --export-json "$W/cli.json" "git -C $d burl status --json $*" >/dev/null 2>&1
	jq -r '.results[0] | [.median, .min, .max] | map(. * 10000 | round / 10) | "\(.[0]) ms (\(.[1])–\(.[2]))"' "$W/cli.json"
}

# mcp ARGS_JSON [mcpcall flags...]: the median and range of a call.
mcp() {
	local args=$1
	shift
	(cd "$W" && "$W/mcpcall" --repeat "$CALLS" "$@" "$args" -- git burl mcp) |
		jq -r '[.median_ms, .min_ms, .max_ms] | map(. * 10 | round / 10) | "\(.[0]) ms (\(.[1])–\(.[2]))"'
}

full=$(cli)
open=$(cli --open)
kib=$(($(git -C "$d" burl status --json | wc -c) / 1024))
okib=$(($(git -C "$d" burl status --json --open | wc -c) / 1024))
echo "| measurement | git burl mcp | git burl status --json | note |"
echo "| --- | --- | --- | --- |"
echo "| tools/call status, $N tasks, warm server, answer read | $(mcp "{\"action\":\"status\",\"cwd\":\"$d\"}" --raw) | $full | $kib KiB answer |"
echo "| tools/call status, $N tasks, warm server, Go SDK client (decodes it) | $(mcp "{\"action\":\"status\",\"cwd\":\"$d\"}") | $full | |"
echo "| tools/call status open:true, $N tasks, warm server, answer read | $(mcp "{\"action\":\"status\",\"open\":true,\"cwd\":\"$d\"}" --raw) | $open (--open) | $okib KiB answer |"
