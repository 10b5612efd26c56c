// Command git-burl-sync is `git burl sync`; see git-burl-sync(1).
package main

import (
	"os"

	// With landing: pr this verb talks to the forge: the Gitea provider
	// (net/http) is linked here, not into every verb.
	_ "github.com/burl-dev/burl/pkg/forge/gitea"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/upkeep"
)

func main() { os.Exit(verb.Main("sync", upkeep.Sync(), os.Args[1:])) }
