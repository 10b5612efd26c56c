// Command git-burl-hook is `git burl hook`; see git-burl-hook(1).
package main

import (
	"os"

	"github.com/burl-dev/burl/pkg/verb"
)

func main() { os.Exit(verb.Main("hook", verb.Hook(), os.Args[1:])) }
