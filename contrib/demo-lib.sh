# shellcheck shell=bash
# What the two tours (demo.sh, demo-pr.sh) share: a throwaway HOME with its
# own git identity and trust store, and run, which prints a command as a
# user would type it, then its output. DEMO_SED rewrites both (the
# throwaway paths, a server's random port) into what the README shows.

# demo_home DIR: HOME is DIR/home, with nothing of the user's in it.
demo_home() {
	export HOME="$1/home" GIT_CONFIG_NOSYSTEM=1
	unset XDG_STATE_HOME # the trust store, then in $HOME like everything else
	mkdir -p "$HOME"
	git config --global user.name "Demo"
	git config --global user.email "demo@example.com"
	git config --global init.defaultBranch main
}

# run CMD...: print the command, then run it and print its output.
run() {
	local out="$" a
	for a in "$@"; do
		case $a in
		*[[:space:]*\'\"]*) out+=" '$a'" ;;
		*) out+=" $a" ;;
		esac
	done
	printf '%s\n' "$out" | sed "$DEMO_SED"
	"$@" 2>&1 | sed "$DEMO_SED"
	echo
}
