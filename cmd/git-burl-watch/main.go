// Command git-burl-watch is `git burl watch`; see git-burl-watch(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("watch", verb.Watch(), os.Args[1:])) }
