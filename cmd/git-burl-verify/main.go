// Command git-burl-verify is `git burl verify`; see git-burl-verify(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("verify", verb.Verify(), os.Args[1:])) }
