package osx

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// ProcessStart is the start time of pid (clock ticks since boot, field 22
// of /proc/<pid>/stat) and whether pid is a zombie: what tells a process
// from a later one given the same pid. ok is false when pid does not run.
func ProcessStart(pid int) (start uint64, zombie, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false, false
	}
	// comm (field 2) is in parentheses and may hold spaces or ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), so field 22 is f[19].
	if len(f) < 20 {
		return 0, false, false
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, false, false
	}
	return start, f[0] == "Z" || f[0] == "X", true
}

// BootID identifies this boot of the machine: a pid recorded before a
// reboot names no process now, whatever runs under that number.
func BootID() string {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// GitRunningIn reports whether a git process runs with its working
// directory inside one of dirs: the only kind of process that may hold a
// git lock file there. known is false where processes cannot be listed.
func GitRunningIn(dirs []string) (running, known bool) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return false, false
	}
	// `git burl ...` runs us under a git waiting for us in the same
	// directory: our ancestors hold no lock.
	mine := map[int]bool{}
	for pid := os.Getppid(); pid > 1 && !mine[pid]; pid = parent(pid) {
		mine[pid] = true
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || mine[pid] {
			continue
		}
		comm, err := os.ReadFile("/proc/" + p.Name() + "/comm")
		if err != nil || !strings.HasPrefix(strings.TrimSpace(string(comm)), "git") || strings.HasPrefix(string(comm), "git-burl") {
			continue
		}
		cwd, err := os.Readlink("/proc/" + p.Name() + "/cwd")
		if errors.Is(err, fs.ErrPermission) {
			// Another user's process: we cannot see where it runs, so it
			// may be in ours.
			return true, true
		}
		if err != nil {
			continue // gone, or a zombie: it holds nothing
		}
		for _, d := range dirs {
			if cwd == d || strings.HasPrefix(cwd, d+string(os.PathSeparator)) {
				return true, true
			}
		}
	}
	return false, true
}

// parent is pid's parent pid, or 0.
func parent(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
