// Command git-burl-cancel is `git burl cancel`; see git-burl-cancel(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("cancel", verb.Cancel(), os.Args[1:])) }
