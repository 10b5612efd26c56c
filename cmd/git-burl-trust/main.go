// Command git-burl-trust is `git burl trust`; see git-burl-trust(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/upkeep"
)

func main() { os.Exit(verb.Main("trust", upkeep.Trust(), os.Args[1:])) }
