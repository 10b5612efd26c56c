#!/usr/bin/env bash
# Sourced by the bench scripts: a git of their own, which reads no user or
# system config, names every commit NAME and never gcs behind a measure.
# isolated_git DIR NAME: the config file in DIR, exported for every git,
# and burl's trust store in DIR too (what a bench trusts is not yours).
isolated_git() {
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$1/gitconfig" XDG_STATE_HOME="$1/state"
	git config --file "$GIT_CONFIG_GLOBAL" user.name "$2"
	git config --file "$GIT_CONFIG_GLOBAL" user.email "$2@burl.invalid"
	git config --file "$GIT_CONFIG_GLOBAL" init.defaultBranch main
	git config --file "$GIT_CONFIG_GLOBAL" gc.auto 0
}
