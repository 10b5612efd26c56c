// Command git-burl-diff is `git burl diff`; see git-burl-diff(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("diff", verb.Diff(), os.Args[1:])) }
