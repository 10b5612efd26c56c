// Package burl holds the files burl's binaries carry with them.
package burl

import "embed"

// Hooks holds the shims hooks/commit-msg and hooks/pre-push: `git burl hooks
// install` writes these exact files, so what is installed is what is
// reviewed there.
//
//go:embed hooks/commit-msg hooks/pre-push
var Hooks embed.FS
