// Command git-burl-hooks is `git burl hooks`; see git-burl-hooks(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("hooks", verb.Hooks(), os.Args[1:])) }
