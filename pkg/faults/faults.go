// Package faults holds burl's failure-injection switches, all in one place
// so that tests can provoke every failure mode with real processes and real
// files, and so that a reader can see every switch at once. They are driven
// by environment variables and cost one lookup when unset.
//
//	BURL_CRASH_AFTER=claim:branch   kill this process right after that step
//	BURL_FAIL=rename[,worktree-add] make those operations fail
//	BURL_FORCE_EXDEV=1              treat every rename as crossing devices
//	BURL_CRASH_AT_GIT=N             kill this process right after its Nth git command
//	BURL_STOP_AFTER=watch:claim     stop (SIGSTOP) this process right after that step
package faults

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/burl-dev/burl/pkg/osx"
)

var (
	crashAfter = os.Getenv("BURL_CRASH_AFTER")
	stopAfter  = os.Getenv("BURL_STOP_AFTER")
	failing    = os.Getenv("BURL_FAIL")
	// ForceEXDEV makes bucket moves take the copy+delete path.
	ForceEXDEV = os.Getenv("BURL_FORCE_EXDEV") != ""
	crashAtGit = gitCrashPoint()
	gitRuns    atomic.Int64
)

func gitCrashPoint() int64 {
	n, err := strconv.ParseInt(os.Getenv("BURL_CRASH_AT_GIT"), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// GitDone counts a finished git command and, when BURL_CRASH_AT_GIT=N and
// this was the Nth, ends the process as kill -9 would: the crash suite
// walks N over every git command a verb runs, so each gap between two git
// commands (and each git command's own effect without burl's next step)
// is a crash point without naming it.
func GitDone(args []string) {
	if crashAtGit == 0 {
		return
	}
	if gitRuns.Add(1) == crashAtGit {
		fmt.Fprintf(os.Stderr, "burl: BURL_CRASH_AT_GIT=%d: crashing after git %s\n", crashAtGit, strings.Join(args, " "))
		osx.KillSelf()
	}
}

// CrashPoint ends the process abruptly (no deferred cleanup, locks left
// behind) when BURL_CRASH_AFTER names verb:step. It models a power cut or a
// kill -9 between two steps of a transaction.
func CrashPoint(verb, step string) {
	if crashAfter != "" && crashAfter == verb+":"+step {
		fmt.Fprintf(os.Stderr, "burl: BURL_CRASH_AFTER=%s: crashing now\n", crashAfter)
		osx.KillSelf()
	}
}

// StopPoint freezes the process (SIGSTOP, as a suspended machine or a
// debugger would) when BURL_STOP_AFTER names verb:step, until it is sent
// SIGCONT; once only. It models a process alive but doing nothing between
// two steps, which only a lease can tell from one at work.
func StopPoint(verb, step string) {
	if stopAfter != "" && stopAfter == verb+":"+step {
		stopAfter = ""
		fmt.Fprintf(os.Stderr, "burl: BURL_STOP_AFTER=%s: stopping now\n", verb+":"+step)
		osx.StopSelf()
	}
}

// Fail returns an injected error when BURL_FAIL lists op.
func Fail(op string) error {
	if failing == "" {
		return nil
	}
	for _, f := range strings.Split(failing, ",") {
		if strings.TrimSpace(f) == op {
			return fmt.Errorf("injected failure (BURL_FAIL=%s)", failing)
		}
	}
	return nil
}
