// Command git-burl-init is `git burl init`; see git-burl-init(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/upkeep"
)

func main() { os.Exit(verb.Main("init", upkeep.Init(), os.Args[1:])) }
