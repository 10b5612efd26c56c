//go:build !linux

package osx

// WatchBinary is the program whose descendants are "inside a watch run".
const WatchBinary = "git-burl-watch"

// InWatchRun cannot read process ancestry portably outside Linux; there
// the sandbox-free detection of §16 is the line of defence.
func InWatchRun() bool { return false }
