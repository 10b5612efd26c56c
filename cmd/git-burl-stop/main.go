// Command git-burl-stop is `git burl stop`; see git-burl-stop(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("stop", verb.Stop(), os.Args[1:])) }
