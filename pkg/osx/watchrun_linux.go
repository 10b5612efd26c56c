//go:build linux

package osx

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WatchBinary is the program whose descendants are "inside a watch run".
const WatchBinary = "git-burl-watch"

// InWatchRun reports whether this process descends from a running
// git-burl-watch, decided by the kernel's parent links. An agent can unset
// any environment variable, but not its ancestry: a process it starts
// (double-forked or not) is re-parented to watch, a child subreaper, and
// stays its descendant. Watch itself never runs the verbs that ask (scope,
// add, trust), so only an agent's commands answer true. The walk has no
// depth limit (an agent can nest as deep as it likes); a pid seen twice
// ends it.
func InWatchRun() bool {
	seen := map[int]bool{}
	for pid := os.Getppid(); pid > 1 && !seen[pid]; pid = parentOf(pid) {
		seen[pid] = true
		if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil &&
			strings.TrimSuffix(filepath.Base(exe), " (deleted)") == WatchBinary {
			return true
		}
	}
	return false
}

// parentOf is field 4 of /proc/<pid>/stat, or 0 when the process is gone.
func parentOf(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
