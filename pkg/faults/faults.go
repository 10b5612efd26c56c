// Package faults holds burl's failure-injection switches, all in one place
// so that tests can provoke every failure mode with real processes and real
// files, and so that a reader can see every switch at once. They are driven
// by environment variables and cost one lookup when unset.
//
//	BURL_CRASH_AFTER=claim:branch   kill this process right after that step
//	BURL_FAIL=rename[,worktree-add] make those operations fail
//	BURL_FORCE_EXDEV=1              treat every rename as crossing devices
package faults

import (
	"fmt"
	"os"
	"strings"

	"github.com/burl-dev/burl/pkg/osx"
)

var (
	crashAfter = os.Getenv("BURL_CRASH_AFTER")
	failing    = os.Getenv("BURL_FAIL")
	// ForceEXDEV makes bucket moves take the copy+delete path.
	ForceEXDEV = os.Getenv("BURL_FORCE_EXDEV") != ""
)

// CrashPoint ends the process abruptly (no deferred cleanup, locks left
// behind) when BURL_CRASH_AFTER names verb:step. It models a power cut or a
// kill -9 between two steps of a transaction.
func CrashPoint(verb, step string) {
	if crashAfter != "" && crashAfter == verb+":"+step {
		fmt.Fprintf(os.Stderr, "burl: BURL_CRASH_AFTER=%s: crashing now\n", crashAfter)
		osx.KillSelf()
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
