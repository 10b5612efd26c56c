// Command git-burl-trust is `git burl trust`; see git-burl-trust(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("trust", verb.Trust(), os.Args[1:])) }
