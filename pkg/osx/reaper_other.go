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
