// Command git-burl-approve is `git burl approve`; see git-burl-approve(1).
package main

import (
	"os"

	// With landing: pr this verb talks to the forge: the Gitea provider
	// (net/http) is linked here, not into every verb.
	_ "github.com/burl-dev/burl/pkg/forge/gitea"
	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("approve", verb.Approve(), os.Args[1:])) }
