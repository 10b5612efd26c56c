package verb_test

import (
	"testing"

	"github.com/burl-dev/burl/pkg/catalog"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/hook"
	"github.com/burl-dev/burl/pkg/monitor"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/authoring"
	"github.com/burl-dev/burl/pkg/verb/gates"
	"github.com/burl-dev/burl/pkg/verb/upkeep"
	"github.com/burl-dev/burl/pkg/verb/views"
)

// constructors are every verb's, for tests that look at all of them (the
// binaries each link only their own).
var constructors = map[string]func() cli.Command{
	"add":        authoring.Add,
	"approve":    verb.Approve,
	"block":      verb.Block,
	"cancel":     verb.Cancel,
	"edit":       authoring.Edit,
	"hold":       verb.Hold,
	"inbox":      views.Inbox,
	"unhold":     verb.Unhold,
	"accept":     verb.Accept,
	"stop":       verb.Stop,
	"drain":      verb.Drain,
	"claim":      verb.Claim,
	"clean":      upkeep.Clean,
	"completion": upkeep.Completion,
	"conflicts":  views.Conflicts,
	"diff":       views.Diff,
	"doctor":     upkeep.Doctor,
	"hook":       hook.Command, // in pkg/hook: the binary git runs on every commit links no other verb
	"hooks":      upkeep.Hooks,
	"init":       upkeep.Init,
	"lock":       upkeep.Lock,
	"log":        views.Log,
	"monitor":    monitor.Command, // in its own package: only its binary links the TUI library
	"reject":     verb.Reject,
	"release":    verb.Release,
	"scope":      verb.Scope,
	"show":       views.Show,
	"stats":      views.Stats,
	"status":     views.Status,
	"submit":     verb.Submit,
	"sync":       upkeep.Sync,
	"unblock":    verb.Unblock,
	"trust":      upkeep.Trust,
	"validate":   gates.Validate,
	"verify":     gates.Verify,
	"watch":      verb.Watch,
	"worktree":   upkeep.Worktree,
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
