// Command git-burl-log is `git burl log`; see git-burl-log(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/views"
)

func main() { os.Exit(verb.Main("log", views.Log(), os.Args[1:])) }
