package watch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/burl-dev/burl/pkg/bwrapbox"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/sandbox"
)

// Grace is how long an agent's processes have between SIGTERM and
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
	// left is how many processes of the run's PID namespace were still
	// there after it ended and had to be killed.
	left int
}

// runAgent runs argv in the task's worktree with the run log as stdout
// and stderr: under bubblewrap (box wraps it) in a PID namespace of its
// own, whose every process is the run's; without, in its own process
// group. The log is an *os.File, not a pipe: a grandchild that keeps the
// descriptor open cannot make Wait hang. The goroutine stays locked to
// its OS thread from start to wait because Linux sends the parent-death
// signal when the creating thread exits, not the process.
func runAgent(argv []string, dir string, env []string, log *os.File, timeout time.Duration, stop <-chan struct{}, box *sandbox.Run) outcome {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// A run without a box (a review, which wraps its own argv) is treated
	// as one without a namespace of its own.
	bwrap := box != nil && box.Bwrap()
	if bwrap {
		argv, env = box.Wrap(argv), bwrapbox.Env(env)
	} else {
		// Without a namespace, the marker in every process's environment
		// is the thread KillMarked follows to the ones that left the
		// process group (which an agent can cut: nothing better exists
		// without namespaces).
		env = append(env[:len(env):len(env)], fmt.Sprintf("BURL_RUN_ID=%d.%d", os.Getpid(), runSeq.Add(1)))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = log, log
	osx.SetProcessGroup(cmd)
	osx.SetParentDeath(cmd)
	var err error
	if bwrap {
		err = box.Start(cmd)
	} else {
		err = cmd.Start()
	}
	if err != nil {
		return outcome{exit: -1, err: err}
	}
	p := runProcs{cmd: cmd, box: box}
	if bwrap {
		p.ns = box.Namespace()
	} else {
		p.marker = env[len(env)-1]
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var o outcome
	select {
	case err = <-done:
	case <-timer.C:
		o.timedOut = true
		err = p.stop(done)
	case <-stop:
		o.stopped = true
		err = p.stop(done)
	}
	// Whatever the leader did, nothing it started outlives the run.
	o.left = p.end()
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

// runProcs are the processes of one run: its PID namespace under
// bubblewrap (ns), else its process group and environment marker.
type runProcs struct {
	cmd    *exec.Cmd
	box    *sandbox.Run
	ns     string
	marker string
}

// stop is SIGTERM to every process of the run, Grace, then SIGKILL; it
// returns the leader's Wait result. Under bubblewrap the signal goes to
// the namespace's processes, not to bwrap itself, which would take them
// all down at once with no time to end well.
func (p runProcs) stop(done <-chan error) error {
	if p.ns != "" {
		osx.SignalPidNamespace(p.ns, syscall.SIGTERM)
	} else {
		_ = osx.TermProcessGroup(p.cmd)
	}
	select {
	case err := <-done:
		return err
	case <-time.After(Grace):
	}
	p.kill()
	return <-done
}

func (p runProcs) kill() {
	if p.ns != "" {
		osx.SignalPidNamespace(p.ns, syscall.SIGKILL)
	}
	_ = osx.KillProcessGroup(p.cmd)
}

// end kills what is left of the run and, under bubblewrap, makes sure by
// the namespace that nothing is: it returns how many processes had to be
// killed. bwrap reports its command's exit before its first process has
// ended the rest of the namespace; that end is waited for first.
func (p runProcs) end() int {
	_ = osx.KillProcessGroup(p.cmd)
	if p.ns == "" {
		if p.marker != "" {
			osx.KillMarked(p.marker)
		}
		return 0
	}
	p.box.WaitInit(5 * time.Second)
	left := len(osx.InPidNamespace(p.ns))
	for deadline := time.Now().Add(5 * time.Second); left > 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		osx.SignalPidNamespace(p.ns, syscall.SIGKILL)
		if len(osx.InPidNamespace(p.ns)) == 0 {
			break
		}
	}
	return left
}
