// Command git-burl-lock is `git burl lock`; see git-burl-lock(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/upkeep"
)

func main() { os.Exit(verb.Main("lock", upkeep.Lock(), os.Args[1:])) }
