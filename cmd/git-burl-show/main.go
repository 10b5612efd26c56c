// Command git-burl-show is `git burl show`; see git-burl-show(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/views"
)

func main() { os.Exit(verb.Main("show", views.Show(), os.Args[1:])) }
