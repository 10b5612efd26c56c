// Command git-burl-accept is `git burl accept`; see git-burl-accept(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("accept", verb.Accept(), os.Args[1:])) }
