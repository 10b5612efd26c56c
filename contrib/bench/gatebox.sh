#!/bin/sh
# gatebox.sh: the build gate in its box (DESIGN §24) against the same build
# unconfined: `go test -count=1 ./...` of burl's own pkg/gate, N times
# each, interleaved; prints the median of each and their ratio (goal
# <= 1.2x). The box is the gate box's argv (bwrap, the whole file system
# read-only, the checkout and Go's caches writable, a private /tmp, no
# network), made by hand here with the same flags.
set -eu
n=${N:-5}
src=$(cd "$(dirname "$0")/../.." && pwd)
gocache=$(go env GOCACHE)
gomod=$(go env GOMODCACHE)
box() {
	bwrap --unshare-user --disable-userns --unshare-pid --new-session --die-with-parent --cap-drop ALL \
		--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --unshare-net \
		--bind "$gocache" "$gocache" --bind "$gomod" "$gomod" --bind "$src" "$src" --chdir "$src" -- "$@"
}
ms() { s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
plain="" boxed=""
i=0
while [ $i -lt "$n" ]; do
	plain="$plain $(ms sh -c "cd '$src' && GOFLAGS=-mod=mod go test -count=1 ./pkg/gate/")"
	boxed="$boxed $(ms box env GOFLAGS=-mod=mod go test -count=1 ./pkg/gate/)"
	i=$((i + 1))
done
med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# shellcheck disable=SC2086 # word lists
p=$(med $plain) b=$(med $boxed)
echo "go test ./pkg/gate unconfined: ${p} ms; in the gate box: ${b} ms; ratio $(awk -v a="$b" -v b="$p" 'BEGIN {printf "%.2f", a / b}')x"
