#!/bin/sh
# Build burl from source and install it:
#   ./install.sh                  binaries, man pages and completions under ~/.local
#   PREFIX=/opt/x ./install.sh    ... under /opt/x
#   DESTDIR=/tmp/pkg ./install.sh staged install (packaging)
#   ./install.sh --uninstall      remove exactly what install puts there
set -eu

PREFIX=${PREFIX:-"$HOME/.local"}
DESTDIR=${DESTDIR:-}
root=$(cd "$(dirname "$0")" && pwd)
bindir="$DESTDIR$PREFIX/bin"
mandir="$DESTDIR$PREFIX/share/man"
bashdir="$DESTDIR$PREFIX/share/bash-completion/completions"
zshdir="$DESTDIR$PREFIX/share/zsh/site-functions"
fishdir="$DESTDIR$PREFIX/share/fish/vendor_completions.d"

say() { [ -n "${BURL_QUIET_INSTALL:-}" ] || echo "$@"; }

binaries() {
	for d in "$root"/cmd/git-burl*; do basename "$d"; done
}

if [ "${1:-}" = "--uninstall" ]; then
	for b in $(binaries); do rm -f "$bindir/$b"; done
	for p in "$root"/man/man1/*.1; do rm -f "$mandir/man1/$(basename "$p")"; done
	for p in "$root"/man/man5/*.5; do rm -f "$mandir/man5/$(basename "$p")"; done
	rm -f "$bashdir/git-burl" "$zshdir/_git-burl" "$fishdir/git-burl.fish"
	say "burl uninstalled from $DESTDIR$PREFIX"
	exit 0
fi

command -v go >/dev/null 2>&1 || { echo "install.sh: the Go toolchain is needed (https://go.dev/dl/)" >&2; exit 1; }
version=$(git -C "$root" describe --tags --always --dirty 2>/dev/null || echo dev)
mkdir -p "$bindir" "$mandir/man1" "$mandir/man5"
(cd "$root" && go build -trimpath -ldflags "-s -w -X github.com/burl-dev/burl/pkg/version.Version=$version" -o "$bindir/" ./cmd/...)
for p in "$root"/man/man1/*.1; do [ -f "$p" ] && cp "$p" "$mandir/man1/"; done
for p in "$root"/man/man5/*.5; do [ -f "$p" ] && cp "$p" "$mandir/man5/"; done
comp="$root/contrib/completion"
if [ -d "$comp" ]; then
	mkdir -p "$bashdir" "$zshdir" "$fishdir"
	[ -f "$comp/git-burl.bash" ] && cp "$comp/git-burl.bash" "$bashdir/git-burl"
	[ -f "$comp/_git-burl" ] && cp "$comp/_git-burl" "$zshdir/_git-burl"
	[ -f "$comp/git-burl.fish" ] && cp "$comp/git-burl.fish" "$fishdir/git-burl.fish"
fi
say "burl $version installed in $DESTDIR$PREFIX (binaries in $bindir)"
case ":$PATH:" in
*":$PREFIX/bin:"*) ;;
*) say "Add it to your PATH (man pages are then found too):"
   say "  export PATH=\"$PREFIX/bin:\$PATH\"" ;;
esac
