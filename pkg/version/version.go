// Package version holds the version string, set at build time by the
// Makefile from `git describe` (-ldflags -X).
package version

// Version is overwritten by the linker.
var Version = "dev"
