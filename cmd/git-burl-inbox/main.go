// Command git-burl-inbox is `git burl inbox`; see git-burl-inbox(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/views"
)

func main() { os.Exit(verb.Main("inbox", views.Inbox(), os.Args[1:])) }
