// Package hooks ships the git hook shims: `git burl hooks install` writes
// these exact files, so what is installed is what is reviewed here.
package hooks

import "embed"

// Files holds commit-msg and pre-push.
//
//go:embed commit-msg pre-push
var Files embed.FS
