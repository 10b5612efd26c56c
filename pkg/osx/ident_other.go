//go:build !linux

package osx

// ProcessStart is unknown where there is no /proc: liveness then rests on
// the pid alone (ProcessAlive).
func ProcessStart(pid int) (start string, zombie, ok bool) { return "", false, false }

// BootID is unknown where there is no /proc.
func BootID() string { return "" }

// GitProcessesIn cannot list processes without /proc: callers fall back
// to the lock's age.
func GitProcessesIn(dirs []string) (pids []int, ok bool) { return nil, false }
