// Command git-burl-clean is `git burl clean`; see git-burl-clean(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("clean", verb.Clean(), os.Args[1:])) }
