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

// GitProcessesIn lists the git processes (not burl's own git-burl-*
// programs, nor the `git` that runs this one as `git burl ...`) whose
// working directory is one of dirs or below it: a git lock file under
// those directories with none of them running was left by a killed git.
// ok is false where the OS cannot say.
func GitProcessesIn(dirs []string) (pids []int, ok bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	ours := ancestors()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || ours[pid] {
			continue
		}
		comm, err := os.ReadFile("/proc/" + e.Name() + "/comm")
		if err != nil {
			continue
		}
		name := strings.TrimSpace(string(comm))
		if !strings.HasPrefix(name, "git") || strings.HasPrefix(name, "git-burl") {
			continue
		}
		cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd")
		if err != nil {
			continue
		}
		for _, d := range dirs {
			if cwd == d || strings.HasPrefix(cwd, strings.TrimSuffix(d, "/")+"/") {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids, true
}

// ancestors are this process and its parents.
func ancestors() map[int]bool {
	out := map[int]bool{}
	for pid := os.Getpid(); pid > 1 && !out[pid]; {
		out[pid] = true
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			break
		}
		i := bytes.LastIndexByte(data, ')')
		f := strings.Fields(string(data[i+1:]))
		if i < 0 || len(f) < 2 {
			break
		}
		if pid, err = strconv.Atoi(f[1]); err != nil {
			break
		}
	}
	return out
}
