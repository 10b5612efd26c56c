// Package burl holds the files burl's binaries carry with them.
package burl

import "embed"

// Hooks holds the shims hooks/commit-msg and hooks/pre-push: `git burl hooks
// install` writes these exact files, so what is installed is what is
// reviewed there.
//
//go:embed hooks/commit-msg hooks/pre-push
var Hooks embed.FS

// Completions holds the shell completion scripts, printed by `git burl
// completion SHELL` exactly as install.sh installs them.
//
//go:embed contrib/completion/git-burl.bash contrib/completion/_git-burl contrib/completion/git-burl.fish
var Completions embed.FS
