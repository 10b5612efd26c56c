//go:build !linux

package osx

import "os/exec"

// SetParentDeath has no equivalent here: an agent outlives a supervisor
// killed with SIGKILL, and its lease is what lets another take the task.
func SetParentDeath(cmd *exec.Cmd) {}
