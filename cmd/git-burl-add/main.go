// Command git-burl-add is `git burl add`; see git-burl-add(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/authoring"
)

func main() { os.Exit(verb.Main("add", authoring.Add(), os.Args[1:])) }
