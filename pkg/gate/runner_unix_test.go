//go:build !windows

package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func run(t *testing.T, ctx context.Context, command string, timeout time.Duration, env ...string) (RunResult, string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "deep", "er", "build.log")
	res, err := RunCommand(ctx, "build", command, t.TempDir(), logPath, timeout, env)
	if err != nil {
		t.Fatalf("RunCommand(%q): %v", command, err)
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(log)
}

func TestRunCommandExitCodes(t *testing.T) {
	tests := []struct {
		command string
		code    int
		tail    []string
	}{
		{"true", 0, []string{}},
		{"echo out; echo err >&2; exit 3", 3, []string{"out", "err"}},
		{"printf 'no newline'", 0, []string{"no newline"}},
		{"printf 'crlf\\r\\n'", 0, []string{"crlf"}},
		{"definitely-not-a-command-burl", 127, nil},
		{"kill -SEGV $$", 128 + 11, []string{}},
		{`echo "$BURL_TEST_VAR"`, 0, []string{"from-env"}},
	}
	for _, tt := range tests {
		res, _ := run(t, context.Background(), tt.command, 0, "BURL_TEST_VAR=from-env")
		if res.ExitCode != tt.code || res.OK() != (tt.code == 0) || res.TimedOut {
			t.Errorf("%q: exit %d ok %v timedOut %v, want exit %d", tt.command, res.ExitCode, res.OK(), res.TimedOut, tt.code)
		}
		if tt.tail != nil && strings.Join(res.Tail, "|") != strings.Join(tt.tail, "|") {
			t.Errorf("%q: tail %q, want %q", tt.command, res.Tail, tt.tail)
		}
		if res.Name != "build" || res.Command != tt.command {
			t.Errorf("%q: name %q command %q", tt.command, res.Name, res.Command)
		}
	}
}

func TestRunCommandRunsInDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "marker"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := RunCommand(context.Background(), "verify", "test -f marker", dir, filepath.Join(t.TempDir(), "v.log"), 0, nil)
	if err != nil || !res.OK() {
		t.Fatalf("res %+v, err %v", res, err)
	}
}

func TestRunCommandTailAndLog(t *testing.T) {
	res, log := run(t, context.Background(), `i=1; while [ $i -le 1000 ]; do echo "line $i"; [ $((i % 100)) -eq 0 ] && echo "err $i" >&2; i=$((i+1)); done`, 0)
	if !res.OK() {
		t.Fatalf("%+v", res)
	}
	var want []string
	for i := 1; i <= 1000; i++ {
		want = append(want, fmt.Sprintf("line %d", i))
		if i%100 == 0 {
			want = append(want, fmt.Sprintf("err %d", i))
		}
	}
	if log != strings.Join(want, "\n")+"\n" {
		t.Errorf("log is not the complete output (%d bytes)", len(log))
	}
	if got, w := strings.Join(res.Tail, "\n"), strings.Join(want[len(want)-40:], "\n"); got != w {
		t.Errorf("tail:\n%s\nwant:\n%s", got, w)
	}
}

func TestRunCommandLongLineTail(t *testing.T) {
	res, log := run(t, context.Background(), `head -c 100000 /dev/zero | tr '\0' x; echo; echo end`, 0)
	if len(log) != 100000+1+4 {
		t.Errorf("log has %d bytes", len(log))
	}
	if len(res.Tail) != 2 || len(res.Tail[0]) > maxTailLine+len("…") || !strings.HasSuffix(res.Tail[0], "x…") || res.Tail[1] != "end" {
		t.Errorf("tail = %d lines, first %d bytes", len(res.Tail), len(res.Tail[0]))
	}
}

func TestRunCommandTimeoutKillsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	res, log := run(t, context.Background(), `sleep 100 & echo $! > `+pidFile+`; echo started; sleep 100`, 500*time.Millisecond)
	elapsed := time.Since(start)
	if !res.TimedOut || res.ExitCode != -1 || res.OK() {
		t.Errorf("%+v", res)
	}
	if elapsed > 1500*time.Millisecond {
		t.Errorf("returned after %v; the grandchild kept it alive", elapsed)
	}
	if res.Seconds < 0.5 || res.Seconds > 1.5 {
		t.Errorf("seconds = %v", res.Seconds)
	}
	if log != "started\n" {
		t.Errorf("log = %q", log)
	}
	assertDead(t, pidFile)
	v, ok := res.Violation()
	if ok || v.Gate != "build" || !strings.Contains(v.Message, "timed out after") {
		t.Errorf("violation %+v, ok %v", v, ok)
	}
}

func TestRunCommandContextCancel(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	res, _ := run(t, ctx, `sleep 100 & echo $! > `+pidFile+`; wait`, time.Minute)
	if elapsed := time.Since(start); elapsed > 1300*time.Millisecond {
		t.Errorf("returned after %v", elapsed)
	}
	if res.TimedOut || res.ExitCode != -1 {
		t.Errorf("%+v", res)
	}
	assertDead(t, pidFile)
}

// TestRunCommandSweepsBackgroundJobs checks that a command which exits but
// leaves a background job holding the output open returns at once, and
// takes the job with it.
func TestRunCommandSweepsBackgroundJobs(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	res, log := run(t, context.Background(), `sleep 100 & echo $! > `+pidFile+`; echo done`, 0)
	if elapsed := time.Since(start); elapsed > 500*time.Millisecond {
		t.Errorf("returned after %v", elapsed)
	}
	if !res.OK() || log != "done\n" {
		t.Errorf("%+v, log %q", res, log)
	}
	assertDead(t, pidFile)
}

// TestRunCommandEscapedProcess checks that a process outside the group
// holding the output open delays the result by the drain grace at most.
func TestRunCommandEscapedProcess(t *testing.T) {
	if _, err := os.Stat("/usr/bin/setsid"); err != nil {
		t.Skip("no setsid")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	res, _ := run(t, context.Background(), `setsid sh -c 'echo $$ > `+pidFile+`; exec sleep 30' & sleep 0.2; echo done`, 0)
	if elapsed := time.Since(start); elapsed > drainGrace+time.Second {
		t.Errorf("returned after %v", elapsed)
	}
	if !res.OK() || len(res.Tail) != 2 || res.Tail[0] != "done" || !strings.Contains(res.Tail[1], "stopped reading output") {
		t.Errorf("%+v", res)
	}
	if pid := readPid(t, pidFile); pid > 0 {
		p, _ := os.FindProcess(pid)
		_ = p.Kill()
	}
}

func readPid(t *testing.T, pidFile string) int {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		t.Fatalf("pid file %q: %v", b, err)
	}
	return pid
}

// assertDead waits briefly for the process in pidFile to be gone. A killed
// orphan stays a zombie until init reaps it, which counts as dead.
func assertDead(t *testing.T, pidFile string) {
	t.Helper()
	pid := readPid(t, pidFile)
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d survived", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
