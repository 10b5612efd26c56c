// Command git-burl-status is `git burl status`; see git-burl-status(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("status", verb.Status(), os.Args[1:])) }
