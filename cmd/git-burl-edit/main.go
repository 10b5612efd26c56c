// Command git-burl-edit is `git burl edit`; see git-burl-edit(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/authoring"
)

func main() { os.Exit(verb.Main("edit", authoring.Edit(), os.Args[1:])) }
