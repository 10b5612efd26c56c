// Command git-burl-release is `git burl release`; see git-burl-release(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("release", verb.Release(), os.Args[1:])) }
