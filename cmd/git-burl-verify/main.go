// Command git-burl-verify is `git burl verify`; see git-burl-verify(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/gates"
)

func main() { os.Exit(verb.Main("verify", gates.Verify(), os.Args[1:])) }
