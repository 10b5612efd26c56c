//go:build windows

package osx

import (
	"errors"
	"os"
	"os/exec"

	"golang.org/x/sys/windows"
)

// ProcessAlive reports whether pid is a running process on this host.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) != nil {
		return false
	}
	return code == 259 // STILL_ACTIVE
}

// Exec runs path as a child and exits with its code: Windows has no execve.
func Exec(path string, argv []string) error {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}

// IsCrossDevice reports a rename that failed because src and dst are on
// different volumes.
func IsCrossDevice(err error) bool { return errors.Is(err, windows.ERROR_NOT_SAME_DEVICE) }

// KillSelf ends this process at once, skipping deferred cleanup.
func KillSelf() { os.Exit(137) }

// StopSelf does nothing: Windows has no SIGSTOP.
func StopSelf() {}
