// Command git-burl-stats is `git burl stats`; see git-burl-stats(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("stats", verb.Stats(), os.Args[1:])) }
