// Command git-burl-claim is `git burl claim`; see git-burl-claim(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("claim", verb.Claim(), os.Args[1:])) }
