//go:build !linux

package osx

// ProcessStart is unknown off Linux: ok reports only whether pid runs, so
// callers fall back to the pid alone.
func ProcessStart(pid int) (start uint64, zombie, ok bool) { return 0, false, ProcessAlive(pid) }

// BootID is unknown off Linux.
func BootID() string { return "" }

// GitRunningIn cannot list processes here: known is false, and callers
// go by the age of what they look at.
func GitRunningIn(dirs []string) (running, known bool) { return false, false }
