//go:build linux

package osx

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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

// Process is a handle on one process (a pidfd): it names that process
// and no other, even once its pid is reused.
type Process struct{ fd int }

// OpenProcess takes a handle on pid.
func OpenProcess(pid int) (*Process, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	return &Process{fd: fd}, nil
}

// Wait waits up to timeout for the process to end and reaps it when it
// is this process's child (a subreaper inherits the orphans of its
// children: bwrap's first process in a sandbox, whose parent does not
// wait for it). It reports whether the process is gone.
func (p *Process) Wait(timeout time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
	for deadline := time.Now().Add(timeout); ; {
		left := time.Until(deadline)
		if left < 0 {
			left = 0
		}
		n, err := unix.Poll(fds, int(left.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if n <= 0 {
			return false
		}
		break
	}
	_ = unix.Waitid(unix.P_PIDFD, p.fd, nil, unix.WEXITED|unix.WNOHANG, nil)
	return true
}

// Close lets the handle go.
func (p *Process) Close() { unix.Close(p.fd) }
