//go:build !windows

package osx

import (
	"errors"
	"os"
	"syscall"
)

// ProcessAlive reports whether pid is a running process on this host.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A zombie still answers signal 0: killed, and not yet reaped by a
	// parent that is gone too (kill -9 of a watcher and its git).
	_, zombie, _ := ProcessStart(pid)
	return !zombie
}

// Exec replaces this process with path, so exit codes, signals and the
// terminal pass straight through (git-burl dispatching to git-burl-<verb>).
func Exec(path string, argv []string) error {
	return syscall.Exec(path, argv, os.Environ())
}

// IsCrossDevice reports a rename that failed because src and dst are on
// different filesystems.
func IsCrossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }

// KillSelf ends this process the way kill -9 would: no deferred cleanup,
// no exit handlers (used to inject crashes in tests).
func KillSelf() {
	_ = syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
	select {}
}

// StopSelf stops this process (SIGSTOP) until it is continued.
func StopSelf() { _ = syscall.Kill(syscall.Getpid(), syscall.SIGSTOP) }
