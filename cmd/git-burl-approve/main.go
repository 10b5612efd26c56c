// Command git-burl-approve is `git burl approve`; see git-burl-approve(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("approve", verb.Approve(), os.Args[1:])) }
