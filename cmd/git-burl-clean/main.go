// Command git-burl-clean is `git burl clean`; see git-burl-clean(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/upkeep"
)

func main() { os.Exit(verb.Main("clean", upkeep.Clean(), os.Args[1:])) }
