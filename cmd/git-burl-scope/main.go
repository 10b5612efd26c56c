// Command git-burl-scope is `git burl scope`; see git-burl-scope(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("scope", verb.Scope(), os.Args[1:])) }
