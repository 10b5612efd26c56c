//go:build !linux

package osx

import (
	"fmt"
	"syscall"
)

// PidNamespace: PID namespaces are Linux's; elsewhere there is none to name.
func PidNamespace(pid int) string { return "" }

// PidNamespaceName: see the Linux version.
func PidNamespaceName(ino uint64) string { return fmt.Sprintf("pid:[%d]", ino) }

// InPidNamespace: see PidNamespace.
func InPidNamespace(ns string) []int { return nil }

// SignalPidNamespace: see PidNamespace.
func SignalPidNamespace(ns string, sig syscall.Signal) int { return 0 }

// KillPidNamespaceIf: see PidNamespace.
func KillPidNamespaceIf(ns string, is func(pid int) bool) int { return 0 }
