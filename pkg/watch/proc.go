package watch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/burl-dev/burl/pkg/osx"
)

// Grace is how long an agent's process group has between SIGTERM and
// SIGKILL, on timeout and on a stop.
const Grace = 10 * time.Second

// runSeq numbers the runs of this watch for their BURL_RUN_ID.
var runSeq atomic.Int64

// outcome is how one agent process ended.
type outcome struct {
	exit     int // -1 when killed by a signal
	timedOut bool
	stopped  bool // watch was told to stop, or lost the task
	err      error
}

// runAgent runs argv in its own process group with the run log as stdout
// and stderr. The log is an *os.File, not a pipe: a grandchild that keeps
// the descriptor open cannot make Wait hang. The goroutine stays locked to
// its OS thread from start to wait because Linux sends the parent-death
// signal when the creating thread exits, not the process.
func runAgent(argv []string, dir string, env []string, log *os.File, timeout time.Duration, stop <-chan struct{}) outcome {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// Every process of the run carries the marker in its environment, the
	// thread KillMarked follows to the ones that left its process group.
	marker := fmt.Sprintf("BURL_RUN_ID=%d.%d", os.Getpid(), runSeq.Add(1))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(env[:len(env):len(env)], marker)
	cmd.Stdout, cmd.Stderr = log, log
	osx.SetProcessGroup(cmd)
	osx.SetParentDeath(cmd)
	if err := cmd.Start(); err != nil {
		return outcome{exit: -1, err: err}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var o outcome
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		o.timedOut = true
		err = stopGroup(cmd, done)
	case <-stop:
		o.stopped = true
		err = stopGroup(cmd, done)
	}
	// Whatever the leader did, nothing it started outlives the run: its
	// process group, and what left it (setsid, a double fork).
	_ = osx.KillProcessGroup(cmd)
	osx.KillMarked(marker)
	o.exit = 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		o.exit = ee.ExitCode()
	case err != nil:
		o.exit, o.err = -1, err
	}
	return o
}

// stopGroup is SIGTERM to the group, Grace, then SIGKILL to the group; it
// returns the leader's Wait result.
func stopGroup(cmd *exec.Cmd, done <-chan error) error {
	_ = osx.TermProcessGroup(cmd)
	select {
	case err := <-done:
		return err
	case <-time.After(Grace):
	}
	_ = osx.KillProcessGroup(cmd)
	return <-done
}
