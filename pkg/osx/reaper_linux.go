//go:build linux

package osx

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

const (
	prSetPdeathsig      = 1
	prSetChildSubreaper = 36
)

func prctl(option, arg uintptr) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, option, arg, 0); e != 0 {
		return e
	}
	return nil
}

// BecomeSubreaper makes this process the one that inherits its
// descendants' orphans (PR_SET_CHILD_SUBREAPER): a daemon an agent started
// with setsid or a double fork stays a descendant of watch instead of
// init's, so InWatchRun answers for it too and KillMarked can reap it.
func BecomeSubreaper() error { return prctl(prSetChildSubreaper, 1) }

// DieWithParent asks the kernel for sig when the process that started
// this one dies, even by SIGKILL (kill -9 of the `git burl watch` a user
// ran, whose child this is), so that the supervisor stops as it would on
// that signal instead of running on as an orphan. The caller keeps its OS
// thread (runtime.LockOSThread) for as long as it wants the signal: Linux
// keeps the setting per thread. A parent already gone by the time it is
// set is told at once.
func DieWithParent(sig syscall.Signal) error {
	ppid := os.Getppid()
	if err := prctl(prSetPdeathsig, uintptr(sig)); err != nil {
		return err
	}
	if os.Getppid() != ppid {
		return syscall.Kill(os.Getpid(), sig)
	}
	return nil
}

// KillMarked SIGKILLs every process of this user whose environment holds
// marker (NAME=VALUE), the descendants of one agent run however they left
// its process group (setsid, double fork), and reaps those that are this
// process's children, as a subreaper's orphans are. It repeats while it
// finds any, since a dying daemon may have forked once more, and returns
// how many it killed.
func KillMarked(marker string) int { return killMarked(append([]byte(marker), 0)) }

// KillMarkedPrefix is KillMarked for every environment entry that starts
// with prefix: all the runs of a watcher that died (BURL_RUN_ID=PID.),
// whose leftovers no subreaper ended.
func KillMarkedPrefix(prefix string) int { return killMarked([]byte(prefix)) }

func killMarked(want []byte) int {
	uid := os.Getuid()
	self := os.Getpid()
	killed := 0
	for round := 0; round < 10; round++ {
		var found []int
		ents, err := os.ReadDir("/proc")
		if err != nil {
			return killed
		}
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == self {
				continue
			}
			if info, err := e.Info(); err != nil || int(info.Sys().(*syscall.Stat_t).Uid) != uid {
				continue
			}
			env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
			if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
				continue
			}
			found = append(found, pid)
		}
		if len(found) == 0 {
			return killed
		}
		for _, pid := range found {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
		for _, pid := range found {
			if parentOf(pid) == self {
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(pid, &ws, 0, nil)
			}
		}
	}
	return killed
}

// CloseOnExecInherited marks every file descriptor above 2 that this
// process inherited as close-on-exec: a supervisor's children (agents,
// their daemons) must not keep the pipes of whatever started it open (a
// terminal's, a test harness's, tee's), which would keep that reader
// waiting on them long after the supervisor is gone. Go opens its own
// descriptors close-on-exec already.
func CloseOnExecInherited() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
