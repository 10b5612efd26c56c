// Command git-burl-conflicts is `git burl conflicts`; see git-burl-conflicts(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("conflicts", verb.Conflicts(), os.Args[1:])) }
