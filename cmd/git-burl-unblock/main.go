// Command git-burl-unblock is `git burl unblock`; see git-burl-unblock(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("unblock", verb.Unblock(), os.Args[1:])) }
