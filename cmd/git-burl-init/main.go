// Command git-burl-init is `git burl init`; see git-burl-init(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("init", verb.Init(), os.Args[1:])) }
