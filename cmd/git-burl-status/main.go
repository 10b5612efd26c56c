// Command git-burl-status is `git burl status`; see git-burl-status(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/views"
)

func main() { os.Exit(verb.Main("status", views.Status(), os.Args[1:])) }
