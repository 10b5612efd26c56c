#!/usr/bin/env bats
# Issue 40 item 6, DESIGN §25: the Gitea build inside make test (minutes
# the first time) prints each step as it happens, and parallel test files
# that all need it build it once. A stand-in `go` plays the toolchain: it
# answers at once, and counts the compiles.

load helpers

setup() {
	SRC=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
	export BURL_FORGE_CACHE="$BATS_TEST_TMPDIR/cache"
	fake="$BATS_TEST_TMPDIR/fake"
	mkdir -p "$fake/bin" "$fake/src"
	cat >"$fake/bin/go" <<SH
#!/bin/sh
# go mod download -json: the module's source; go build -o OUT: a binary.
case "\$1 \$2 \$3" in
"mod download -json") printf '{\n\t"Dir": "%s",\n}\n' "$fake/src" ;;
build*)
	echo compile >>"$fake/compiles"
	sleep "\${FAKE_COMPILE_SECONDS:-0}"
	while [ "\$1" != -o ]; do shift; done
	printf '#!/bin/sh\n' >"\$2" && chmod +x "\$2" ;;
esac
exit 0
SH
	chmod +x "$fake/bin/go"
	export PATH="$fake/bin:$PATH"
}

@test "make forge builds Gitea saying each step as it starts, then the time it took" {
	run make -s -C "$SRC" forge
	assert_success
	for n in 1 2 3 4; do
		assert_output_contains "gitea.sh: [$n/4]"
	done
	assert_output_contains "once per machine"
	assert_output_contains "gitea.sh: built in 0m"
	[ "$(wc -l <"$fake/compiles")" = 1 ]
	# Built: the next make forge says nothing and compiles nothing.
	run make -s -C "$SRC" forge
	assert_success
	[ -z "$output" ]
	[ "$(wc -l <"$fake/compiles")" = 1 ]
}

@test "two builds at once (parallel test files): one compiles, the other waits for it, says so, and gets the same binary" {
	FAKE_COMPILE_SECONDS=2 "$SRC/contrib/forge/gitea.sh" build >"$BATS_TEST_TMPDIR/a.out" 2>"$BATS_TEST_TMPDIR/a.err" &
	a=$!
	for _ in $(seq 50); do
		[ -s "$fake/compiles" ] && break
		sleep 0.1
	done
	run "$SRC/contrib/forge/gitea.sh" build
	assert_success
	wait "$a"
	assert_output_contains "waiting for another build of Gitea to finish"
	[ "$(tail -n 1 <<<"$output")" = "$(cat "$BATS_TEST_TMPDIR/a.out")" ]
	[ -x "$(cat "$BATS_TEST_TMPDIR/a.out")" ]
	[ "$(wc -l <"$fake/compiles")" = 1 ]
}
