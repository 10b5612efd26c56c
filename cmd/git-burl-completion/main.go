// Command git-burl-completion is `git burl completion`; see git-burl-completion(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("completion", verb.Completion(), os.Args[1:])) }
