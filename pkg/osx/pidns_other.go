//go:build !linux

package osx

import (
	"errors"
	"fmt"
	"syscall"
	"time"
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

// Process: see PidNamespace.
type Process struct{}

// OpenProcess: see PidNamespace.
func OpenProcess(pid int) (*Process, error) { return nil, errors.New("no process handles here") }

// Wait: see PidNamespace.
func (p *Process) Wait(timeout time.Duration) bool { return true }

// Close: see PidNamespace.
func (p *Process) Close() {}
