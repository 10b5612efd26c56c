//go:build linux

package osx

import (
	"os/exec"
	"syscall"
)

// SetParentDeath makes the kernel SIGKILL the command when the thread that
// started it exits (so a supervisor killed with SIGKILL takes its agent
// with it). The caller must start and wait for the command from one
// goroutine locked to its OS thread (runtime.LockOSThread): Linux ties the
// signal to the creating thread, not the process (golang/go #27505).
func SetParentDeath(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
