// Command git-burl-block is `git burl block`; see git-burl-block(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("block", verb.Block(), os.Args[1:])) }
