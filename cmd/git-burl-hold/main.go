// Command git-burl-hold is `git burl hold`; see git-burl-hold(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("hold", verb.Hold(), os.Args[1:])) }
