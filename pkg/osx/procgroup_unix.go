//go:build !windows

package osx

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// SetProcessGroup makes the command the leader of a new process group, so
// that KillProcessGroup can reach everything it spawns (a shell's background
// jobs included) and not only the shell itself. Call it before cmd.Start.
func SetProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// KillProcessGroup sends SIGKILL to the process group led by a command
// started with SetProcessGroup. It returns os.ErrProcessDone when no member
// of the group is left, which lets it serve directly as an exec.Cmd.Cancel.
func KillProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return errors.New("osx: kill process group: command not started")
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// TermProcessGroup asks the process group of a command started with
// SetProcessGroup to stop (SIGTERM), before a grace period and
// KillProcessGroup.
func TermProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return errors.New("osx: term process group: command not started")
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
}
