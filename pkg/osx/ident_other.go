//go:build !linux

package osx

// ProcessStart is unknown off Linux: ok reports only whether pid runs, so
// callers fall back to the pid alone.
func ProcessStart(pid int) (start uint64, zombie, ok bool) { return 0, false, ProcessAlive(pid) }

// BootID is unknown off Linux.
func BootID() string { return "" }
