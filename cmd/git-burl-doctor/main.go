// Command git-burl-doctor is `git burl doctor`; see git-burl-doctor(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/upkeep"
)

func main() { os.Exit(verb.Main("doctor", upkeep.Doctor(), os.Args[1:])) }
