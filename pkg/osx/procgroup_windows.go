//go:build windows

package osx

import (
	"errors"
	"os/exec"
	"strconv"
	"syscall"
)

// SetProcessGroup starts the command in a new process group so that a
// console Ctrl+C aimed at burl is not also delivered to it and the two can be
// stopped independently. Windows has no group-wide kill signal, so
// KillProcessGroup walks the process tree instead. Call it before cmd.Start.
func SetProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= syscall.CREATE_NEW_PROCESS_GROUP
}

// KillProcessGroup force-kills the command and its descendants with
// `taskkill /T /F`. taskkill finds descendants through their parent process
// id, so children orphaned by an already exited leader are out of its reach.
// When taskkill fails (not on PATH, or the leader is gone) the process itself
// is killed, which returns os.ErrProcessDone if it had already exited; that
// lets this function serve directly as an exec.Cmd.Cancel.
func KillProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return errors.New("osx: kill process group: command not started")
	}
	tree := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid))
	if tree.Run() == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// TermProcessGroup cannot ask politely here (no SIGTERM): it kills the
// tree at once.
func TermProcessGroup(cmd *exec.Cmd) error { return KillProcessGroup(cmd) }
