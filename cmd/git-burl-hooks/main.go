// Command git-burl-hooks is `git burl hooks`; see git-burl-hooks(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/upkeep"
)

func main() { os.Exit(verb.Main("hooks", upkeep.Hooks(), os.Args[1:])) }
