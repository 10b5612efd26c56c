// Command git-burl-completion is `git burl completion`; see git-burl-completion(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/upkeep"
)

func main() { os.Exit(verb.Main("completion", upkeep.Completion(), os.Args[1:])) }
