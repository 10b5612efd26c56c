// Command git-burl-conflicts is `git burl conflicts`; see git-burl-conflicts(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/views"
)

func main() { os.Exit(verb.Main("conflicts", views.Conflicts(), os.Args[1:])) }
