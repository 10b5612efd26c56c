// Command git-burl-add is `git burl add`; see git-burl-add(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("add", verb.Add(), os.Args[1:])) }
