package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/burl-dev/burl/pkg/osx"
)

// RunResult is the outcome of one build or verify command (PRD 12.3).
type RunResult struct {
	Name     string        `json:"name"` // "build" or "verify"
	Command  string        `json:"command"`
	ExitCode int           `json:"exit_code"` // -1 when killed by timeout or failed to start
	Duration time.Duration `json:"-"`
	Seconds  float64       `json:"seconds"`
	TimedOut bool          `json:"timed_out"`
	LogPath  string        `json:"log"`
	Tail     []string      `json:"tail"` // last 40 lines of combined stdout+stderr
	// Offline: it ran in a gate box without the network (DESIGN §24).
	Offline bool `json:"-"`
}

// Box is where RunCommandIn runs a command: Wrap is the argv that runs
// argv confined (bubblewrap's, up to and with "--"), Drop the variables
// taken out of its environment, Env the ones set; the zero Box runs it as
// it is.
type Box struct {
	Wrap    []string
	Drop    []string
	Env     []string
	Offline bool
}

// Argv is argv run in the box (as it is, for the zero Box).
func (b Box) Argv(argv []string) []string {
	return append(append([]string{}, b.Wrap...), argv...)
}

// Environ is env as the box gives it to what runs in it.
func (b Box) Environ(env []string) []string {
	return append(without(env, b.Drop), b.Env...)
}

// offlineHints are what a build says when it could not reach the network.
var offlineHints = []string{"dial tcp", "could not resolve host", "temporary failure in name resolution",
	"network is unreachable", "enotfound", "eai_again", "getaddrinfo", "no such host", "failed to establish a new connection"}

// OK reports whether the command passed.
func (r RunResult) OK() bool { return r.ExitCode == 0 && !r.TimedOut }

// Violation describes a failed run for the QA report; ok is true when the
// run passed and there is nothing to report.
func (r RunResult) Violation() (v Violation, ok bool) {
	if r.OK() {
		return Violation{}, true
	}
	var what string
	switch {
	case r.TimedOut:
		what = "timed out after " + r.Duration.Round(time.Millisecond).String()
	case r.ExitCode == -1:
		what = "was killed"
	default:
		what = fmt.Sprintf("exited with code %d", r.ExitCode)
	}
	tail := r.Tail
	if len(tail) > FixTailLines {
		tail = tail[len(tail)-FixTailLines:]
	}
	msg := fmt.Sprintf("%s command %s: %s  (log: %s)", r.Name, what, r.Command, r.LogPath)
	if r.Offline {
		all := strings.ToLower(strings.Join(r.Tail, "\n"))
		for _, h := range offlineHints {
			if strings.Contains(all, h) {
				msg += "; it ran without the network (its gate box has none): if it needs one (a module download, a registry), set gate_network: true in agents.yaml (or, without one, config.yaml) and trust it (git burl trust)"
				break
			}
		}
	}
	return Violation{
		Gate:    r.Name,
		Rule:    r.Command,
		Message: msg,
		Tail:    strings.Join(tail, "\n"),
	}, false
}

// FixTailLines is how many last lines of a failed command's output a gate
// failure shows; the QA report keeps the longer tail.
const FixTailLines = 20

const (
	tailLines = 40
	// maxTailLine caps one remembered line, so that output without
	// newlines (progress bars, minified dumps) cannot grow the tail.
	maxTailLine = 1024
	// killGrace is how long Wait waits for the leader after its group was
	// killed before killing the leader alone (the Windows tree walk can
	// miss it).
	killGrace = time.Second
	// drainGrace bounds reading output after the command and its process
	// group are gone: only a process that left the group (setsid, a daemon)
	// can still hold the pipe open, and it must not hold up the gate.
	drainGrace = time.Second
)

var errTimeout = errors.New("command timed out")

// RunCommand runs command through the platform shell (sh -c, cmd /c) in
// dir with env appended to the environment. Combined stdout and stderr are
// streamed to logPath (created with its parent directories, truncated) and
// only the last 40 lines are kept in memory. On timeout (if > 0) or when ctx
// is done the command's whole process group is killed; ExitCode is then -1
// and TimedOut tells the two apart. When the command ends by itself, what is
// left of its process group (background jobs it forgot) is killed too, so
// nothing outlives the gate. A non-zero exit is a result, not an error: an
// error means the command could not be started or the log not written.
func RunCommand(ctx context.Context, name, command, dir, logPath string, timeout time.Duration, env []string) (RunResult, error) {
	return RunCommandIn(ctx, Box{}, name, command, dir, logPath, timeout, env)
}

// RunCommandIn is RunCommand in box (DESIGN §24: the project's code is
// agent code wherever it runs).
func RunCommandIn(ctx context.Context, box Box, name, command, dir, logPath string, timeout time.Duration, env []string) (RunResult, error) {
	res := RunResult{Name: name, Command: command, ExitCode: -1, LogPath: logPath, Offline: box.Offline}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return res, fmt.Errorf("%s log: %w", name, err)
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return res, fmt.Errorf("%s log: %w", name, err)
	}
	out := &tailWriter{log: logFile}
	// One pipe for both streams keeps their interleaving. It is ours rather
	// than exec's so that Wait returns when the shell exits, whoever else
	// still holds the write end.
	pr, pw, err := os.Pipe()
	if err != nil {
		out.finish()
		return res, fmt.Errorf("%s: %w", name, err)
	}
	defer pr.Close()

	runCtx, cancel := context.WithCancel(ctx)
	if timeout > 0 {
		runCtx, cancel = context.WithTimeoutCause(ctx, timeout, errTimeout)
	}
	defer cancel()

	cmd := shellCommand(runCtx, command)
	if len(box.Wrap) > 0 {
		cmd = exec.CommandContext(runCtx, box.Wrap[0], append(append([]string{}, box.Wrap[1:]...), cmd.Args...)...)
	}
	cmd.Dir = dir
	cmd.Env = append(append(without(os.Environ(), box.Drop), env...), box.Env...)
	cmd.Stdout, cmd.Stderr = pw, pw
	osx.SetProcessGroup(cmd)
	// exec calls Cancel only when the context ends before the command does,
	// so it marks exactly the runs that we killed.
	var killed atomic.Bool
	cmd.Cancel = func() error {
		killed.Store(true)
		return osx.KillProcessGroup(cmd)
	}
	cmd.WaitDelay = killGrace

	start := time.Now()
	err = cmd.Start()
	// The children hold their own copies of the write end; ours would keep
	// the reader from ever seeing EOF.
	pw.Close()
	if err != nil {
		out.finish()
		return res, fmt.Errorf("start %s command: %w", name, err)
	}
	drained := make(chan struct{})
	go func() {
		// Copy fails only once finish has been called, when nobody reads on.
		_, _ = io.Copy(out, pr)
		close(drained)
	}()

	waitErr := cmd.Wait()
	// Sweep background jobs of a command that exited by itself; after a kill
	// this finds nothing. The error only says the group is already empty.
	_ = osx.KillProcessGroup(cmd)
	select {
	case <-drained:
	case <-time.After(drainGrace):
		out.note("burl: stopped reading output: a process that left the command's process group still holds it open")
		// Unblocks the reader where pipes are pollable; elsewhere it stays
		// blocked until that process exits, writing nowhere after finish.
		pr.Close()
	}
	res.Duration = time.Since(start)
	res.Seconds = math.Round(res.Duration.Seconds()*1000) / 1000
	tail, logErr := out.finish()
	res.Tail = tail

	if cmd.ProcessState == nil {
		return res, fmt.Errorf("%s command: %w", name, waitErr)
	}
	res.ExitCode = exitCode(cmd.ProcessState)
	if killed.Load() {
		res.ExitCode = -1
		res.TimedOut = errors.Is(context.Cause(runCtx), errTimeout)
	}
	if logErr != nil {
		return res, fmt.Errorf("%s log: %w", name, logErr)
	}
	return res, nil
}

// without is env without the variables named in drop.
func without(env, drop []string) []string {
	if len(drop) == 0 {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(drop, k) {
			out = append(out, kv)
		}
	}
	return out
}

// exitCode reports a death by signal as 128+signal, the way a shell does,
// so a crash reads as a failure distinct from our own kills (-1).
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// tailWriter writes everything to the log and remembers the last lines.
type tailWriter struct {
	mu       sync.Mutex
	log      *os.File
	logErr   error // first failure writing the log; output is still read
	finished bool

	ring [tailLines]string
	n    int // lines pushed so far
	cur  []byte
	cut  bool // cur lost bytes beyond maxTailLine
}

var errFinished = errors.New("output closed")

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished {
		return 0, errFinished
	}
	// A failing log must not stop the reading: the command would block on
	// a full pipe and never exit.
	if w.logErr == nil {
		_, w.logErr = w.log.Write(p)
	}
	for rest := p; len(rest) > 0; {
		seg := rest
		i := bytes.IndexByte(rest, '\n')
		if i >= 0 {
			seg = rest[:i]
		}
		if room := maxTailLine - len(w.cur); len(seg) > room {
			seg, w.cut = seg[:room], true
		}
		w.cur = append(w.cur, seg...)
		if i < 0 {
			break
		}
		w.push()
		rest = rest[i+1:]
	}
	return len(p), nil
}

func (w *tailWriter) push() {
	line := string(trimCR(w.cur))
	if w.cut {
		line += "…"
	}
	w.ring[w.n%tailLines] = line
	w.n++
	w.cur, w.cut = w.cur[:0], false
}

// note adds a line of burl's own to the log and the tail.
func (w *tailWriter) note(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.cur) > 0 || w.cut {
		w.push()
	}
	if w.logErr == nil {
		_, w.logErr = fmt.Fprintf(w.log, "\n%s\n", msg)
	}
	w.cur = append(w.cur, msg...)
	w.push()
}

// finish closes the log and returns the tail; later writes fail.
func (w *tailWriter) finish() ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.cur) > 0 || w.cut {
		w.push()
	}
	w.finished = true
	if err := w.log.Close(); w.logErr == nil {
		w.logErr = err
	}
	first := max(w.n-tailLines, 0)
	tail := make([]string, 0, w.n-first)
	for i := first; i < w.n; i++ {
		tail = append(tail, w.ring[i%tailLines])
	}
	return tail, w.logErr
}
