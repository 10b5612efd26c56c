// Command git-burl-submit is `git burl submit`; see git-burl-submit(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("submit", verb.Submit(), os.Args[1:])) }
