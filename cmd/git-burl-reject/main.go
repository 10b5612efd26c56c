// Command git-burl-reject is `git burl reject`; see git-burl-reject(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("reject", verb.Reject(), os.Args[1:])) }
