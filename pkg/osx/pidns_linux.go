//go:build linux

package osx

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// PidNamespace is the PID namespace of pid as the kernel names it
// ("pid:[4026532179]"), "" when the process is gone or unreadable.
func PidNamespace(pid int) string {
	ns, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/pid")
	if err != nil {
		return ""
	}
	return ns
}

// PidNamespaceName is the name the kernel gives the PID namespace whose
// inode number is ino (as bubblewrap's --info-fd reports it).
func PidNamespaceName(ino uint64) string { return fmt.Sprintf("pid:[%d]", ino) }

// InPidNamespace lists the processes (as this system's /proc numbers
// them) that belong to the PID namespace ns: the members of one sandboxed
// run, however they were started, whatever their environment says. A
// process cannot leave its PID namespace.
func InPidNamespace(ns string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if PidNamespace(pid) == ns {
			if _, zombie, ok := ProcessStart(pid); ok && !zombie {
				out = append(out, pid)
			}
		}
	}
	return out
}

// SignalPidNamespace sends sig to every process of the PID namespace ns
// and returns how many it reached.
func SignalPidNamespace(ns string, sig syscall.Signal) int {
	n := 0
	for _, pid := range InPidNamespace(ns) {
		if syscall.Kill(pid, sig) == nil {
			n++
		}
	}
	return n
}

// KillPidNamespaceIf SIGKILLs the processes of the PID namespace ns for
// which is says yes, and returns how many.
func KillPidNamespaceIf(ns string, is func(pid int) bool) int {
	n := 0
	for _, pid := range InPidNamespace(ns) {
		if is(pid) && syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n
}
