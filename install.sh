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
# Only git-burl goes on PATH; the verbs live where it looks for them (as git
# keeps its own in libexec/git-core), so `git help -a` and `git bu<TAB>` show
# one burl.
execdir="$DESTDIR$PREFIX/libexec/burl"
mandir="$DESTDIR$PREFIX/share/man"
bashdir="$DESTDIR$PREFIX/share/bash-completion/completions"
zshdir="$DESTDIR$PREFIX/share/zsh/site-functions"
fishdir="$DESTDIR$PREFIX/share/fish/vendor_completions.d"

say() { [ -n "${BURL_QUIET_INSTALL:-}" ] || echo "$@"; }

verbs() {
	for d in "$root"/cmd/git-burl-*; do basename "$d"; done
}

# Verb binaries an install before libexec/burl put next to git-burl.
remove_old_layout() {
	for b in $(verbs); do rm -f "$bindir/$b"; done
}

# `git help burl-claim` opens git-burl-claim(1) only while git-burl-claim is
# on PATH; otherwise git asks man for "gitburl-claim" (its name for guides).
# A one-line .so page by that name points man at the real one.
alias_page() {
	b=$(basename "$1")
	echo "gitburl-${b#git-burl-}"
}

if [ "${1:-}" = "--uninstall" ]; then
	rm -f "$bindir/git-burl"
	remove_old_layout
	for b in $(verbs); do rm -f "$execdir/$b"; done
	rmdir "$execdir" 2>/dev/null || true
	for p in "$root"/man/man1/*.1; do rm -f "$mandir/man1/$(basename "$p")" "$mandir/man1/$(alias_page "$p")"; done
	for p in "$root"/man/man5/*.5; do rm -f "$mandir/man5/$(basename "$p")"; done
	rm -f "$bashdir/git-burl" "$zshdir/_git-burl" "$fishdir/git-burl.fish"
	# The folders install made, when nothing else is left in them; never
	# above the prefix.
	for d in "$execdir" "$DESTDIR$PREFIX/libexec" "$mandir/man1" "$mandir/man5" "$mandir" \
		"$bashdir" "$DESTDIR$PREFIX/share/bash-completion" "$zshdir" "$DESTDIR$PREFIX/share/zsh" \
		"$fishdir" "$DESTDIR$PREFIX/share/fish" "$DESTDIR$PREFIX/share" "$bindir"; do
		rmdir "$d" 2>/dev/null || true
	done
	say "burl uninstalled from $DESTDIR$PREFIX"
	say "Hooks that git burl hooks install put in repositories stay there (and warn that git-burl is not on PATH):"
	say "run git burl hooks uninstall in each first, or see \"Removing burl from a repository\" in the README."
	exit 0
fi

command -v go >/dev/null 2>&1 || { echo "install.sh: the Go toolchain is needed (https://go.dev/dl/)" >&2; exit 1; }
version=$(git -C "$root" describe --tags --always --dirty 2>/dev/null || echo dev)
mkdir -p "$bindir" "$execdir" "$mandir/man1" "$mandir/man5"
ldflags="-s -w -X github.com/burl-dev/burl/pkg/version.Version=$version"
# shellcheck disable=SC2046 # one package path per word
(cd "$root" && go build -trimpath -ldflags "$ldflags" -o "$bindir/" ./cmd/git-burl &&
	go build -trimpath -ldflags "$ldflags" -o "$execdir/" $(for b in $(verbs); do echo "./cmd/$b"; done))
remove_old_layout
for p in "$root"/man/man1/*.1; do [ -f "$p" ] && cp "$p" "$mandir/man1/"; done
for p in "$root"/man/man1/git-burl-*.1; do
	[ -f "$p" ] && echo ".so man1/$(basename "$p")" >"$mandir/man1/$(alias_page "$p")"
done
for p in "$root"/man/man5/*.5; do [ -f "$p" ] && cp "$p" "$mandir/man5/"; done
comp="$root/contrib/completion"
if [ -d "$comp" ]; then
	mkdir -p "$bashdir" "$zshdir" "$fishdir"
	[ -f "$comp/git-burl.bash" ] && cp "$comp/git-burl.bash" "$bashdir/git-burl"
	[ -f "$comp/_git-burl" ] && cp "$comp/_git-burl" "$zshdir/_git-burl"
	[ -f "$comp/git-burl.fish" ] && cp "$comp/git-burl.fish" "$fishdir/git-burl.fish"
fi
say "burl $version installed in $DESTDIR$PREFIX (git-burl in $bindir, its verbs in $execdir)"
case ":$PATH:" in
*":$PREFIX/bin:"*) ;;
*) say "Add it to your PATH (man pages are then found too):"
   say "  export PATH=\"$PREFIX/bin:\$PATH\"" ;;
esac
# bash-completion looks in $XDG_DATA_DIRS (default /usr/local/share:/usr/share)
# and in ~/.local/share; any other prefix must be added for `git burl <TAB>`.
case "$PREFIX" in
"$HOME/.local" | /usr | /usr/local) ;;
*) case ":${XDG_DATA_DIRS:-/usr/local/share:/usr/share}:" in
	*":$PREFIX/share:"*) ;;
	*) say "For bash completion from this prefix, add its share directory to XDG_DATA_DIRS:"
	   say "  export XDG_DATA_DIRS=\"$PREFIX/share:\${XDG_DATA_DIRS:-/usr/local/share:/usr/share}\""
	   say "(or load it directly: source <(git burl completion bash))" ;;
	esac ;;
esac
