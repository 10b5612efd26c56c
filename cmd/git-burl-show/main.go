// Command git-burl-show is `git burl show`; see git-burl-show(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("show", verb.Show(), os.Args[1:])) }
