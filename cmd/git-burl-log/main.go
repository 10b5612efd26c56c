// Command git-burl-log is `git burl log`; see git-burl-log(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("log", verb.Log(), os.Args[1:])) }
