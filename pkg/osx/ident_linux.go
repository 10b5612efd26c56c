//go:build linux

package osx

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// ProcessStart identifies one incarnation of pid: its start time in clock
// ticks since boot (field 22 of /proc/<pid>/stat). Pids are reused
// (pid_max is often 32768), so a pid alone cannot tell a lock holder from
// an unrelated process that got the same number later. zombie reports a
// process that has exited but was not reaped yet: it holds nothing.
func ProcessStart(pid int) (start string, zombie, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false, false
	}
	// comm (field 2) may hold spaces and parentheses: fields after it are
	// counted from the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return "", false, false
	}
	f := strings.Fields(string(data[i+1:]))
	// f[0] is field 3 (state), so field 22 is f[19].
	if len(f) < 20 {
		return "", false, false
	}
	return f[19], f[0] == "Z" || f[0] == "X", true
}

// BootID changes with every boot: a lock written before a reboot is dead
// whatever its pid now names.
func BootID() string {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}
