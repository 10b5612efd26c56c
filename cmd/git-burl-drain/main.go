// Command git-burl-drain is `git burl drain`; see git-burl-drain(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("drain", verb.Drain(), os.Args[1:])) }
