// Command git-burl-diff is `git burl diff`; see git-burl-diff(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/views"
)

func main() { os.Exit(verb.Main("diff", views.Diff(), os.Args[1:])) }
