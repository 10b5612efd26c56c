// Command git-burl-unhold is `git burl unhold`; see git-burl-unhold(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("unhold", verb.Unhold(), os.Args[1:])) }
