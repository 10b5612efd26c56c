//go:build !linux

package osx

import "syscall"

// BecomeSubreaper has no equivalent outside Linux.
func BecomeSubreaper() error { return nil }

// DieWithParent has no equivalent outside Linux: there the supervisor
// outlives a parent killed with SIGKILL.
func DieWithParent(sig syscall.Signal) error { return nil }

// KillMarked cannot find processes by their environment outside Linux;
// the run's process group is all watch stops there.
func KillMarked(marker string) int { return 0 }

// KillMarkedPrefix: see KillMarked.
func KillMarkedPrefix(prefix string) int { return 0 }

// CloseOnExecInherited: see the Linux version; elsewhere inherited
// descriptors are left as they are.
func CloseOnExecInherited() {}
