package osx

import "fmt"

// GoneWhy says how the process pid, recorded with its start time and the
// machine's boot id when it was alive, is gone on this host; "" while it
// still runs. The start time and boot id tell it from a later process the
// kernel gave the same number: the one liveness test of the locks, the
// watch registry and whoever else records a process.
func GoneWhy(pid int, start, boot string) string {
	if boot != "" {
		if now := BootID(); now != "" && now != boot {
			return "that process is no longer running (the machine has rebooted since)"
		}
	}
	now, zombie, ok := ProcessStart(pid)
	switch {
	case zombie:
		return "that process has exited (a zombie not yet reaped)"
	case !ProcessAlive(pid):
		return "that process is no longer running"
	case !ok:
		return ""
	case start != "" && now != start:
		return fmt.Sprintf("that process is no longer running (pid %d now belongs to another process)", pid)
	}
	return ""
}
