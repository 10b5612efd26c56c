// Command git-burl-stats is `git burl stats`; see git-burl-stats(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/views"
)

func main() { os.Exit(verb.Main("stats", views.Stats(), os.Args[1:])) }
