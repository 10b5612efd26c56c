package verb

import (
	"testing"

	"github.com/burl-dev/burl/pkg/catalog"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/hook"
	"github.com/burl-dev/burl/pkg/monitor"
)

// constructors are every verb's, for tests that look at all of them (the
// binaries each link only their own).
var constructors = map[string]func() cli.Command{
	"add":        Add,
	"approve":    Approve,
	"block":      Block,
	"cancel":     Cancel,
	"edit":       Edit,
	"hold":       Hold,
	"inbox":      Inbox,
	"unhold":     Unhold,
	"accept":     Accept,
	"stop":       Stop,
	"drain":      Drain,
	"claim":      Claim,
	"clean":      Clean,
	"completion": Completion,
	"conflicts":  Conflicts,
	"diff":       Diff,
	"doctor":     Doctor,
	"hook":       hook.Command, // in pkg/hook: the binary git runs on every commit links no other verb
	"hooks":      Hooks,
	"init":       Init,
	"lock":       Lock,
	"log":        Log,
	"monitor":    monitor.Command, // in its own package: only its binary links the TUI library
	"reject":     Reject,
	"release":    Release,
	"scope":      Scope,
	"show":       Show,
	"stats":      Stats,
	"status":     Status,
	"submit":     Submit,
	"sync":       Sync,
	"unblock":    Unblock,
	"trust":      Trust,
	"validate":   Validate,
	"verify":     Verify,
	"watch":      Watch,
	"worktree":   Worktree,
}

// above are the verbs whose command lives in a package that imports this
// one (it runs the verbs), so this package's tests cannot name it; that
// package tests it.
var above = map[string]string{"mcp": "pkg/mcp"}

// Every verb of the catalog has a constructor here and a main that uses it.
func TestEveryVerbHasAConstructor(t *testing.T) {
	for _, v := range catalog.Verbs {
		if _, ok := constructors[v.Name]; !ok && above[v.Name] == "" {
			t.Errorf("verb %s has no constructor in constructors", v.Name)
		}
	}
	if len(constructors)+len(above) != len(catalog.Verbs) {
		t.Errorf("%d constructors for %d verbs", len(constructors), len(catalog.Verbs))
	}
}
